/** What a baseline child reports over IPC: how many were sent, how many failed, and in how long. */
export interface LanesReport {
  sent: number;
  failed: number;
  firstError?: string;
  /** From the first send to the last answer, ms. */
  ms: number;
}

/** Runs `send(i)` for i in 0…count-1, at most `inFlight` at a time, counting successes and failures. */
export async function runInLanes(count: number, inFlight: number, send: (i: number) => Promise<void>): Promise<LanesReport> {
  let next = 0;
  let sent = 0;
  let failed = 0;
  let firstError: string | undefined;
  const started = performance.now();
  const lane = async () => {
    while (next < count) {
      const i = next++;
      try {
        await send(i);
        sent += 1;
      } catch (err) {
        failed += 1;
        firstError ??= err instanceof Error ? err.message : String(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, lane));
  return { sent, failed, ms: performance.now() - started, ...(firstError ? { firstError } : {}) };
}
