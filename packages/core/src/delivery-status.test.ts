import { summarizeEmailStatus } from './delivery-status';

describe('summarizeEmailStatus', () => {
  test.each([
    [['queued', 'queued'], 'queued'],
    [['scheduled'], 'scheduled'],
    [['queued', 'sent'], 'sent'],
    [['delivered', 'queued'], 'queued'],
    [['delivered', 'sent'], 'sent'],
    [['delivery_delayed', 'sent', 'delivered'], 'delivery_delayed'],
    [['delivered', 'delivered'], 'delivered'],
    [['bounced', 'bounced'], 'bounced'],
    [['delivered', 'bounced'], 'delivered'],
    [['bounced', 'failed'], 'bounced'],
    [['failed', 'suppressed'], 'failed'],
    [['suppressed', 'suppressed'], 'suppressed'],
    [['delivered', 'complained', 'bounced'], 'complained'],
    [['canceled', 'canceled'], 'canceled'],
  ] as const)('when recipients are %j, then the email is %s', (recipients, expected) => {
    expect(summarizeEmailStatus(recipients)).toBe(expected);
  });
});
