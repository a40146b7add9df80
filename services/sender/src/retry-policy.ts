/** Never retry sooner than this, whatever a server asks or the schedule says. */
const MIN_DELAY_SECONDS = 1;

/** Where a deferred recipient stands when its latest attempt ended. */
export interface DeferredAttempt {
  /** Attempts made, counting the one just deferred (1 after the first). */
  attemptsMade: number;
  /** When the recipient's first attempt began. */
  firstAttemptAt: Date;
  /** The delay the server asked for ("try again in N"), in seconds, or null. */
  retryAfterSeconds: number | null;
  /** When the deferred attempt ended. */
  now: Date;
}

/** The schedule's whole span in ms: a recipient is retried for this long after its first attempt. */
export const retrySpanMs = (schedule: readonly number[]): number => schedule.reduce((sum, seconds) => sum + seconds, 0) * 1000;

/**
 * When to try a deferred recipient again, or null to give it up (→ failed). DESIGN §4:
 * - the delay is the schedule's entry for this attempt, the last entry once they run out;
 * - a server's "try again in N" may shorten it, never below the schedule's first delay;
 * - no attempt is planned past the deadline (first attempt + the schedule's span), so the last
 *   try happens at the deadline, unless that is closer than the first delay: the gap wins;
 * - the recipient is given up only on a deferral at or after the deadline.
 */
export function nextAttemptAt(schedule: readonly number[], attempt: DeferredAttempt): Date | null {
  const deadline = attempt.firstAttemptAt.getTime() + retrySpanMs(schedule);
  const now = attempt.now.getTime();
  const first = schedule[0];
  if (first === undefined || now >= deadline) return null;
  const scheduled = schedule[Math.min(attempt.attemptsMade, schedule.length) - 1] ?? first;
  const asked = attempt.retryAfterSeconds === null ? scheduled : Math.max(first, Math.min(scheduled, attempt.retryAfterSeconds));
  const floorMs = Math.max(MIN_DELAY_SECONDS, first) * 1000;
  const delayMs = Math.max(MIN_DELAY_SECONDS * 1000, asked * 1000);
  return new Date(Math.min(now + delayMs, Math.max(deadline, now + floorMs)));
}
