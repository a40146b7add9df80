const CHECK_TIMEOUT_MS = 2_000;

export type CheckResult = 'ok' | 'unavailable';

export interface Readiness {
  ready: boolean;
  checks: { postgres: CheckResult; redis: CheckResult; shuttingDown: boolean };
}

/** What a service's readiness depends on: a PostgreSQL probe, a Redis probe, and its shutdown flag. */
export interface ReadinessProbes {
  postgres(): Promise<unknown>;
  redis(): Promise<unknown>;
  isShuttingDown(): boolean;
}

async function check(probe: () => Promise<unknown>): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([probe(), timeout]);
    return 'ok';
  } catch {
    return 'unavailable';
  } finally {
    clearTimeout(timer);
  }
}

/** Ready: PostgreSQL and Redis each answer within 2 s, and the process is not shutting down. */
export async function checkReadiness(probes: ReadinessProbes): Promise<Readiness> {
  const [postgres, redis] = await Promise.all([check(probes.postgres), check(probes.redis)]);
  const shuttingDown = probes.isShuttingDown();
  return { ready: postgres === 'ok' && redis === 'ok' && !shuttingDown, checks: { postgres, redis, shuttingDown } };
}
