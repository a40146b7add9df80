import type { Logger, WebhookQueue } from '@mailroom/core';
import { fanOutEvents, type Pool } from '@mailroom/db';

// Events read from the outbox per transaction.
const EVENTS_PER_FAN_OUT = 500;

/**
 * Follows the outbox until it has caught up: each page of events becomes delivery rows in the
 * transaction that moves the `webhooks` cursor, then jobs on the deliveries queue. Jobs lost
 * after the commit (Redis down) leave pending rows that the reconciler re-enqueues. Returns the
 * deliveries created.
 */
export async function fanOut(options: { pool: Pool; queue: Pick<WebhookQueue, 'enqueueNow'>; logger: Logger }): Promise<number> {
  let created = 0;
  for (;;) {
    const page = await fanOutEvents(options.pool, EVENTS_PER_FAN_OUT);
    created += page.deliveries.length;
    if (page.deliveries.length > 0) {
      await options.queue.enqueueNow(page.deliveries).catch((err: unknown) => {
        options.logger.warn({ err, deliveries: page.deliveries.length }, 'deliveries not enqueued; the reconciler will find them');
      });
    }
    if (page.events < EVENTS_PER_FAN_OUT) return created;
  }
}
