/** Never retry sooner than this, whatever a server asks. */
const MIN_DELAY_SECONDS = 1;

/**
 * When to try a deferred recipient again, or null once the schedule is exhausted (→ failed).
 * `attemptsMade` counts the attempt that was just deferred. A server's "try again in N" makes
 * the retry sooner, never later, than the schedule.
 */
export function nextAttemptAt(
  attemptsMade: number,
  schedule: readonly number[],
  retryAfterSeconds: number | null,
  now = new Date(),
): Date | null {
  const scheduled = schedule[attemptsMade - 1];
  if (scheduled === undefined) return null;
  const seconds = retryAfterSeconds === null ? scheduled : Math.min(scheduled, retryAfterSeconds);
  return new Date(now.getTime() + Math.max(MIN_DELAY_SECONDS, seconds) * 1000);
}
