import { MAX_RETRY_AFTER_SECONDS, parseRetryAfter, retryDelayMs } from '../src/retry';

describe('retry delays', () => {
  test('when retrying, then the back-off doubles per retry, with jitter between half and all of it, up to 8 s', () => {
    expect([0, 1, 2, 3, 4, 5].map((n) => retryDelayMs(n, null, () => 1))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
    expect([0, 1, 2].map((n) => retryDelayMs(n, null, () => 0))).toEqual([250, 500, 1000]);
  });

  test('when the server sent Retry-After, then the wait is never shorter than it, and a wait over a minute is refused', () => {
    expect(retryDelayMs(0, 3, () => 1)).toBe(3000);
    expect(retryDelayMs(5, 1, () => 1)).toBe(8000);
    expect(retryDelayMs(0, MAX_RETRY_AFTER_SECONDS + 1)).toBeNull();
  });

  test('when Retry-After is seconds or an HTTP date, then it is read as seconds; anything else is ignored', () => {
    const now = Date.parse('2026-11-21T10:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2);
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Sat, 21 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
  });
});
