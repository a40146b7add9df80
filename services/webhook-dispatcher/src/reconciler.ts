import type { DueDelivery, EventQueue, Logger, WebhookQueue } from '@mailroom/core';
import { disableFailingEndpoints, findStrandedDeliveries, type Pool, readWebhookCursor, reconcileOutbox } from '@mailroom/db';

const PAGE = 500;

export interface ReconcileResult {
  /** Deliveries re-enqueued (lost with Redis, or their dispatcher died holding them). */
  stranded: number;
  /** Endpoints disabled for failing five days without a success. */
  disabled: number;
  /** Whether the outbox held events after the cursor (a wake-up was sent). */
  outboxBehind: boolean;
}

/**
 * The dispatcher's housekeeping, on the RECONCILE_INTERVAL_SECONDS schedule (and at once after
 * a recover): disables endpoints failing for five days and stops their pending deliveries;
 * re-enqueues pending deliveries due for longer than `graceSeconds` that nobody holds; wakes
 * the fan-out when events wait after the `webhooks` cursor (a lost notice).
 */
export async function reconcileDispatcher(options: {
  pool: Pool;
  queue: Pick<WebhookQueue, 'enqueueDue'>;
  eventQueue: Pick<EventQueue, 'notify'>;
  logger: Logger;
  graceSeconds: number;
}): Promise<ReconcileResult> {
  const { pool, logger } = options;
  const disabled = await disableFailingEndpoints(pool);
  let stranded = 0;
  let after: DueDelivery | undefined;
  for (;;) {
    const page = await findStrandedDeliveries(pool, { graceSeconds: options.graceSeconds, limit: PAGE, after });
    if (page.length === 0) break;
    await options.queue.enqueueDue(page);
    stranded += page.length;
    after = page[page.length - 1];
    if (page.length < PAGE) break;
  }
  const outboxBehind = await reconcileOutbox(pool, options.eventQueue, await readWebhookCursor(pool));
  if (stranded > 0 || disabled > 0) logger.info({ stranded, disabled }, 'reconciler re-enqueued deliveries or disabled endpoints');
  return { stranded, disabled, outboxBehind };
}
