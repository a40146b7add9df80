import { nextAttemptAt, retrySpanMs } from './retry-policy';

const T0 = new Date('2026-11-22T10:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const secondsAfterT0 = (date: Date | null) => (date === null ? null : (date.getTime() - T0.getTime()) / 1000);

/** The next attempt, in seconds after a first attempt at T0, for a deferral ending `now` seconds after it. */
function next(schedule: number[], attemptsMade: number, now: number, retryAfterSeconds: number | null = null) {
  return secondsAfterT0(nextAttemptAt(schedule, { attemptsMade, firstAttemptAt: T0, now: at(now), retryAfterSeconds }));
}

/** Every attempt's time (seconds after T0) while a server defers each at once, and when the recipient failed. */
function simulate(schedule: number[], retryAfterSeconds: number | null, attemptSeconds = 0) {
  const attempts: number[] = [0];
  for (;;) {
    const ended = (attempts.at(-1) as number) + attemptSeconds;
    const planned = next(schedule, attempts.length, ended, retryAfterSeconds);
    if (planned === null) return { attempts, failedAt: ended };
    attempts.push(planned);
    if (attempts.length > 10_000) throw new Error('never gives up');
  }
}

const gaps = (attempts: number[]) => attempts.slice(1).map((t, i) => t - (attempts[i] as number));
const DEFAULT_SCHEDULE = [300, 390, 507, 659, 857, 1114, 1448, 1882, 2447, 3181, 4136, 5376, 6989, 9086, 11812, 15356, 19962];

describe('retrySpanMs', () => {
  test('when given the default schedule, then its span is its sum, about 24 hours (23 h 45 min)', () => {
    expect(retrySpanMs(DEFAULT_SCHEDULE)).toBe(85_502_000);
  });
});

describe('nextAttemptAt', () => {
  test('when the server names no delay, then each retry follows its schedule entry', () => {
    expect(next([3, 5, 7], 1, 0)).toBe(3);
    expect(next([3, 5, 7], 2, 3)).toBe(8);
    expect(next([3, 5, 7], 3, 8)).toBe(15);
  });

  test('when the server never relents and names no delay, then 1 + N attempts are made and it fails at the end of the span', () => {
    const { attempts, failedAt } = simulate([3, 5, 7], null);
    expect(attempts).toEqual([0, 3, 8, 15]);
    expect(failedAt).toBe(15);
  });

  test('when the server asks for less than the schedule, then the retry comes sooner but never before the first delay', () => {
    expect(next([300, 390, 507], 2, 300, 60)).toBe(600);
    expect(next([300, 390, 507], 2, 300, 350)).toBe(650);
    expect(next([3, 3, 3], 1, 0, 1)).toBe(3);
    expect(next([3, 3, 3], 1, 0, 0)).toBe(3);
  });

  test('when the server asks for more than the schedule, then the schedule wins', () => {
    expect(next([3, 5, 7], 1, 0, 3600)).toBe(3);
  });

  test('when a server always asks for 1 second, then attempts stay at least the first delay apart and the recipient fails only once the span has passed', () => {
    const { attempts, failedAt } = simulate([3, 3, 3], 1, 0.1);
    expect(Math.min(...gaps(attempts))).toBeGreaterThanOrEqual(3);
    expect(failedAt).toBeGreaterThanOrEqual(9);
    expect(failedAt).toBeLessThan(9 + 3 + 0.2);
  });

  test('when a server always asks for 1 minute under the default schedule, then it retries every 5 minutes for about 24 hours, not 85 seconds', () => {
    const { attempts, failedAt } = simulate(DEFAULT_SCHEDULE, 60, 1);
    expect(Math.min(...gaps(attempts))).toBeGreaterThanOrEqual(300);
    expect(failedAt).toBeGreaterThanOrEqual(retrySpanMs(DEFAULT_SCHEDULE) / 1000);
    expect(failedAt).toBeLessThan(retrySpanMs(DEFAULT_SCHEDULE) / 1000 + 301);
  });

  test('when the attempts outnumber the schedule entries, then the last entry is kept', () => {
    expect(next([3, 5, 100], 5, 20, 50)).toBe(70);
    expect(next([3, 5, 100], 9, 20)).toBe(108);
  });

  test('when the next delay would pass the end of the span, then the last attempt is made at the end of the span', () => {
    expect(next([3, 5, 7], 3, 8.5)).toBe(15);
    expect(next([300, 390, 507], 3, 690)).toBe(1197);
  });

  test('when the end of the span is closer than the first delay, then the last attempt still waits the first delay', () => {
    expect(next([3, 3, 3], 3, 7)).toBe(10);
  });

  test('when a deferral ends at or after the end of the span, then the recipient is given up', () => {
    expect(next([3, 5, 7], 4, 15)).toBeNull();
    expect(next([3, 5, 7], 2, 40)).toBeNull();
  });

  test('when the schedule is empty, then the first deferral gives up', () => {
    expect(next([], 1, 0)).toBeNull();
  });

  test('when the schedule holds zeros, then retries still wait at least a second', () => {
    expect(next([0, 5], 1, 0)).toBe(1);
  });
});
