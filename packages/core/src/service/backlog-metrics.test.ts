import { createLogger } from '../logger';
import { type BacklogReading, registerBacklogMetrics } from './backlog-metrics';
import { createServiceRegistry } from './metrics';

const logger = createLogger({ service: 'test', level: 'silent' });
const sample = (text: string, name: string, queue: string) =>
  new RegExp(`^${name}\\{queue="${queue}"\\} (\\S+)$`, 'm').exec(text)?.[1];

describe('the backlog gauges', () => {
  test('when scraped, then each queue reports its reading, and scrapes within the cache age share one reading', async () => {
    const registry = createServiceRegistry('sender');
    const reads: string[] = [];
    let due = 7;
    registerBacklogMetrics(registry, {
      queues: ['send', 'inbound'],
      read: async (queue) => {
        reads.push(queue);
        return { due: queue === 'send' ? due : 0, oldestDueAgeSeconds: queue === 'send' ? 12.5 : 0 };
      },
      logger,
      maxAgeMs: 200,
    });
    const first = await registry.metrics();
    expect(sample(first, 'mailroom_queue_due_items', 'send')).toBe('7');
    expect(sample(first, 'mailroom_queue_due_items', 'inbound')).toBe('0');
    expect(sample(first, 'mailroom_queue_oldest_due_age_seconds', 'send')).toBe('12.5');
    // No failure yet, and each queue's failure count is there at 0 (so increase() sees the first).
    expect(sample(first, 'mailroom_queue_backlog_read_failures_total', 'send')).toBe('0');
    expect(sample(first, 'mailroom_queue_backlog_read_failures_total', 'inbound')).toBe('0');
    // Two gauges, two queues, one read per queue.
    expect(reads.sort()).toEqual(['inbound', 'send']);
    due = 9;
    expect(sample(await registry.metrics(), 'mailroom_queue_due_items', 'send')).toBe('7');
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(sample(await registry.metrics(), 'mailroom_queue_due_items', 'send')).toBe('9');
    expect(reads).toHaveLength(4);
  });

  test('when the database does not answer in time or fails, then the scrape answers anyway without those series, and counts the failure', async () => {
    const registry = createServiceRegistry('webhook-dispatcher');
    let hanging = 0;
    registerBacklogMetrics(registry, {
      queues: ['webhook-deliveries', 'send'],
      read: (queue) => {
        if (queue === 'send') return Promise.reject(new Error('connection refused'));
        hanging += 1;
        return new Promise<BacklogReading>(() => undefined);
      },
      logger,
      timeoutMs: 100,
    });
    const started = Date.now();
    const text = await registry.metrics();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(text).toContain('# TYPE mailroom_queue_due_items gauge');
    expect(sample(text, 'mailroom_queue_due_items', 'webhook-deliveries')).toBeUndefined();
    expect(sample(text, 'mailroom_queue_due_items', 'send')).toBeUndefined();
    expect(sample(text, 'mailroom_queue_backlog_read_failures_total', 'webhook-deliveries')).toBe('1');
    expect(sample(text, 'mailroom_queue_backlog_read_failures_total', 'send')).toBe('1');
    // The next scrape waits for the stuck read again instead of starting a second one.
    const again = await registry.metrics();
    expect(sample(again, 'mailroom_queue_backlog_read_failures_total', 'webhook-deliveries')).toBe('2');
    expect(hanging).toBe(1);
  });
});
