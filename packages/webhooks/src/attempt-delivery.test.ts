import { MAX_RETRY_AFTER_SECONDS, nextRetryAt } from './attempt-delivery';
import { parseRetryAfter } from './webhook-client';

describe('the retry schedule', () => {
  const now = new Date('2026-11-23T04:00:00.000Z');
  const schedule = [5, 300, 1800];
  const at = (attemptsBefore: number, status: number | null, retryAfterSeconds: number | null, random = 0.5) =>
    nextRetryAt({ retrySchedule: schedule, random: () => random }, attemptsBefore, { status, retryAfterSeconds }, now);
  const seconds = (d: Date | null) => (d === null ? null : (d.getTime() - now.getTime()) / 1000);

  test('when attempt n fails, then attempt n + 1 waits the schedule entry n, within ±10 % jitter, and none follows the last', () => {
    expect([0, 1, 2].map((n) => seconds(at(n, 500, null)))).toEqual([5, 300, 1800]);
    expect(seconds(at(1, 500, null, 0))).toBe(270);
    expect(seconds(at(1, 500, null, 0.999_999))).toBeCloseTo(330, 0);
    expect(at(3, 500, null)).toBeNull();
  });

  test('when a 429 or 503 says Retry-After, then the next attempt waits at least that long, at most the cap', () => {
    expect(seconds(at(0, 429, 120))).toBe(120);
    expect(seconds(at(0, 503, 60))).toBe(60);
    // Shorter than the schedule: the schedule wins; on another status Retry-After is ignored.
    expect(seconds(at(1, 429, 10))).toBe(300);
    expect(seconds(at(0, 500, 120))).toBe(5);
    expect(seconds(at(0, 429, 10 ** 9))).toBe(MAX_RETRY_AFTER_SECONDS);
  });

  test('when Retry-After is seconds or an HTTP date, then it is read as seconds from now; anything else is ignored', () => {
    const clock = Date.parse('2026-11-23T04:00:00.000Z');
    expect(parseRetryAfter('120', clock)).toBe(120);
    expect(parseRetryAfter('Mon, 23 Nov 2026 04:02:00 GMT', clock)).toBe(120);
    expect(parseRetryAfter('Mon, 23 Nov 2026 03:00:00 GMT', clock)).toBe(0);
    // RFC 9110 §5.6.7: a recipient must accept all three HTTP-date forms, each in GMT whatever the host's zone.
    expect(parseRetryAfter('Monday, 23-Nov-26 04:02:00 GMT', clock)).toBe(120);
    expect(parseRetryAfter('Mon Nov 23 04:02:00 2026', clock)).toBe(120);
    expect(parseRetryAfter('Sun Nov  1 04:00:00 2026', clock)).toBe(0);
    // Two digits more than 50 years ahead are the last century's: long past.
    expect(parseRetryAfter('Sunday, 06-Nov-94 08:49:37 GMT', clock)).toBe(0);
    expect(parseRetryAfter('Tuesday, 23-Nov-60 04:00:00 GMT', clock)).toBe(34 * 365 * 86_400 + 9 * 86_400);
    expect(parseRetryAfter('Mon, 31 Feb 2026 04:02:00 GMT', clock)).toBeNull();
    expect(parseRetryAfter('mon, 23 nov 2026 04:02:00 gmt', clock)).toBeNull();
    expect(parseRetryAfter('Mon, 23 Nov 2026 04:02:00 UTC', clock)).toBeNull();
    expect(parseRetryAfter('soon', clock)).toBeNull();
    expect(parseRetryAfter('-5', clock)).toBeNull();
    expect(parseRetryAfter(undefined, clock)).toBeNull();
  });
});
