import { DELIVERY_STATUSES } from './delivery-status';
import { canTransition } from './recipient-transitions';

describe('canTransition', () => {
  test.each([
    ['queued', 'sent'],
    ['queued', 'delivered'],
    ['queued', 'suppressed'],
    ['sent', 'delivery_delayed'],
    ['delivery_delayed', 'delivery_delayed'],
    ['delivery_delayed', 'delivered'],
    ['delivery_delayed', 'failed'],
    ['delivery_delayed', 'suppressed'],
    ['delivered', 'bounced'],
    ['delivered', 'complained'],
    ['bounced', 'complained'],
  ] as const)('when a recipient is %s, then it may become %s', (from, to) => {
    expect(canTransition(from, to)).toBe(true);
  });

  test.each([
    ['delivered', 'delivery_delayed'],
    ['delivered', 'delivered'],
    ['bounced', 'delivered'],
    ['bounced', 'bounced'],
    ['complained', 'complained'],
    ['complained', 'bounced'],
    ['failed', 'delivered'],
    ['sent', 'queued'],
    ['delivery_delayed', 'sent'],
    ['delivered', 'suppressed'],
  ] as const)('when a recipient is %s, then it may not become %s', (from, to) => {
    expect(canTransition(from, to)).toBe(false);
  });

  test('when a status is final, then nothing moves it back to an unfinished one', () => {
    for (const from of ['delivered', 'bounced', 'complained', 'failed', 'suppressed', 'canceled'] as const) {
      for (const to of ['scheduled', 'queued', 'sent', 'delivery_delayed'] as const) expect(canTransition(from, to)).toBe(false);
    }
    expect(DELIVERY_STATUSES.filter((to) => canTransition('complained', to))).toEqual([]);
  });
});
