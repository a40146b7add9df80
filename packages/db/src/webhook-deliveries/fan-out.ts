import type { DeliveryKey } from '@mailroom/core';
import { lockOutboxCursor, moveOutboxCursor, type OutboxCursor, readOutbox, readOutboxCursor } from '../events';
import { inTransaction, type Pool } from '../pool';

/** The outbox follower whose cursor the fan-out moves (a row of `outbox_cursors`). */
export const WEBHOOKS_CONSUMER = 'webhooks';

export interface FanOutResult {
  /** Events read from the outbox (0: it has caught up). */
  events: number;
  /** Delivery rows created, due now. */
  deliveries: DeliveryKey[];
}

/**
 * Reads the next `limit` events after the `webhooks` cursor and creates one delivery row per
 * subscribing endpoint (DESIGN §5): enabled, of the event's project, subscribed to its type,
 * subscribed since before the event was created and, for an endpoint with a route, only events
 * whose `data.route_id` is that route. The rows and the moved cursor commit together, under a
 * lock on the cursor row, so two dispatchers never fan out the same range and a crash between
 * the two cannot happen. Rows are unique per (event, endpoint): a repeat creates nothing.
 */
export async function fanOutEvents(pool: Pool, limit: number): Promise<FanOutResult> {
  return inTransaction(pool, async (client) => {
    const cursor = (await lockOutboxCursor(client, WEBHOOKS_CONSUMER)) as OutboxCursor;
    const page = await readOutbox(client, cursor, limit);
    if (page.events.length === 0) return { events: 0, deliveries: [] };
    const inserted = await client.query<{ event_id: string; webhook_id: string }>({
      name: 'mailroom-webhook-fan-out',
      // Joined in SQL so created_at and subscribed_at compare in the database's own type.
      text: `INSERT INTO webhook_deliveries (event_id, webhook_id, project_id)
             SELECT e.id, w.id, w.project_id
               FROM email_events e
               JOIN webhooks w ON w.project_id = e.project_id AND w.enabled AND e.type = ANY (w.events)
                              AND w.subscribed_at <= e.created_at
                              AND (w.route_id IS NULL OR w.route_id = e.data ->> 'route_id')
              WHERE e.id = ANY ($1::text[])
             ON CONFLICT DO NOTHING
             RETURNING event_id, webhook_id`,
      values: [page.events.map((e) => e.id)],
    });
    await moveOutboxCursor(client, WEBHOOKS_CONSUMER, page.cursor);
    return { events: page.events.length, deliveries: inserted.rows.map((r) => ({ eventId: r.event_id, webhookId: r.webhook_id })) };
  });
}

/** The `webhooks` follower's cursor, for `reconcileOutbox`; the start of the outbox before its first fan-out. */
export function readWebhookCursor(pool: Pool): Promise<OutboxCursor> {
  return readOutboxCursor(pool, WEBHOOKS_CONSUMER);
}
