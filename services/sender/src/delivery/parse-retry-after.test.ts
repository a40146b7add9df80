import { parseRetryAfterSeconds } from './parse-retry-after';

describe('parseRetryAfterSeconds', () => {
  it.each([
    ['4.7.1 Greylisted, try again in 120 seconds', 120],
    ['Greylisting in action, please retry in 5 min', 300],
    ['Temporarily deferred, try again later in 30s', 30],
    ['please retry after 2 minutes', 120],
    ['Try again in 1 hour', 3600],
    ['come back in 90 secs', 90],
    ['TRY AGAIN IN 45', 45],
    ['greylisted: try again, in 10 mins', 600],
  ])('when the reply says "%s", then the delay is %d s', (text, seconds) => {
    expect(parseRetryAfterSeconds(text)).toBe(seconds);
  });

  it.each([['4.2.0 Try again later'], ['Mailbox temporarily unavailable'], ['retry in a while'], ['421 Service not available']])(
    'when the reply says "%s", then there is no delay',
    (text) => {
      expect(parseRetryAfterSeconds(text)).toBeNull();
    },
  );

  it('when the reply asks for more than a day, then the delay is capped at a day', () => {
    expect(parseRetryAfterSeconds('try again in 72 hours')).toBe(86_400);
  });
});
