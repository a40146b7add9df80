const CHECK_TIMEOUT_MS = 2_000;

/** The message of a 503 from /readyz, beside its `checks`. */
export const NOT_READY = 'Not ready: a dependency is unavailable, the database lacks a migration, or the process is shutting down.';

export type CheckResult = 'ok' | 'unavailable';
/** `behind`: the database lacks a migration this code expects (apply them: `mailroom migrate`). */
export type MigrationsResult = 'ok' | 'behind' | 'unavailable';

export interface Readiness {
  ready: boolean;
  checks: { postgres: CheckResult; redis: CheckResult; migrations: MigrationsResult; shuttingDown: boolean };
}

/** What a service's readiness depends on: PostgreSQL and Redis probes, the schema's, and its shutdown flag. */
export interface ReadinessProbes {
  postgres(): Promise<unknown>;
  redis(): Promise<unknown>;
  /** True when the database has every migration the code expects (it may have newer ones). */
  migrations(): Promise<boolean>;
  isShuttingDown(): boolean;
}

async function check<T>(probe: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS);
  });
  try {
    return { ok: true, value: await Promise.race([probe(), timeout]) };
  } catch {
    return { ok: false };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Ready: PostgreSQL and Redis each answer within 2 s, the database has the code's newest
 * migration, and the process is not shutting down.
 */
export async function checkReadiness(probes: ReadinessProbes): Promise<Readiness> {
  const [postgres, redis, migrations] = await Promise.all([check(probes.postgres), check(probes.redis), check(probes.migrations)]);
  const checks = {
    postgres: postgres.ok ? 'ok' : 'unavailable',
    redis: redis.ok ? 'ok' : 'unavailable',
    migrations: !migrations.ok ? 'unavailable' : migrations.value ? 'ok' : 'behind',
    shuttingDown: probes.isShuttingDown(),
  } as const;
  const ready = checks.postgres === 'ok' && checks.redis === 'ok' && checks.migrations === 'ok' && !checks.shuttingDown;
  return { ready, checks };
}
