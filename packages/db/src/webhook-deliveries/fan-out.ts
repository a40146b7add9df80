import type { DeliveryKey } from '@mailroom/core';
import { lockOutboxCursor, moveOutboxCursor, type OutboxCursor, READABLE_AFTER_CURSOR, readOutboxCursor } from '../events';
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
 * Reads the next `limit` events after the `webhooks` cursor (the outbox's rule,
 * `READABLE_AFTER_CURSOR`) and creates one delivery row per subscribing endpoint (DESIGN §5):
 * enabled, of the event's project, subscribed to its type, subscribed since before the event
 * was created and, for an endpoint with a route, only events whose `data.route_id` is that
 * route. One statement: the events stay in the database, only the new keys and the page's last
 * cursor come back. The rows and the moved cursor commit together, under a lock on the cursor
 * row, so two dispatchers never fan out the same range and a crash between the two cannot
 * happen. Rows are unique per (event, endpoint): a repeat creates nothing.
 */
export async function fanOutEvents(pool: Pool, limit: number): Promise<FanOutResult> {
  return inTransaction(pool, async (client) => {
    const cursor = (await lockOutboxCursor(client, WEBHOOKS_CONSUMER)) as OutboxCursor;
    // The page is read in (xact_id, position) order and stops at the limit. While a burst outruns
    // the statistics, the planner expected few rows past the cursor and fetched them all by bitmap
    // to sort them (5,000 read for a page of 500). Set for this transaction only.
    await client.query('SET LOCAL enable_bitmapscan = off');
    const { rows } = await client.query<FanOutRow>({
      name: 'mailroom-webhook-fan-out',
      // Joined in SQL so created_at and subscribed_at compare in the database's own type.
      text: `WITH page AS (
               SELECT email_events.id, email_events.project_id, email_events.type, email_events.data, email_events.created_at,
                      email_events.xact_id, email_events.position
                 FROM email_events
                WHERE ${READABLE_AFTER_CURSOR}
                ORDER BY email_events.xact_id, email_events.position
                LIMIT $3),
             inserted AS (
               INSERT INTO webhook_deliveries (event_id, webhook_id, project_id)
               SELECT e.id, w.id, w.project_id
                 FROM page e
                 JOIN webhooks w ON w.project_id = e.project_id AND w.enabled AND e.type = ANY (w.events)
                                AND w.subscribed_at <= e.created_at
                                AND (w.route_id IS NULL OR w.route_id = e.data ->> 'route_id')
               ON CONFLICT DO NOTHING
               RETURNING event_id, webhook_id),
             last AS (
               SELECT page.xact_id::text AS xact_id, page.position::text AS position
                 FROM page ORDER BY page.xact_id DESC, page.position DESC LIMIT 1)
             SELECT (SELECT count(*)::int FROM page) AS events, last.xact_id, last.position, i.deliveries
               FROM (SELECT json_agg(json_build_object('eventId', event_id, 'webhookId', webhook_id)) AS deliveries FROM inserted) i
               LEFT JOIN last ON true`,
      values: [cursor.xactId, cursor.position, limit],
    });
    const row = rows[0];
    if (!row || row.events === 0 || row.xact_id === null || row.position === null) return { events: 0, deliveries: [] };
    await moveOutboxCursor(client, WEBHOOKS_CONSUMER, { xactId: row.xact_id, position: row.position });
    return { events: row.events, deliveries: row.deliveries ?? [] };
  });
}

interface FanOutRow {
  events: number;
  /** The page's last cursor; null when the page is empty. */
  xact_id: string | null;
  position: string | null;
  /** The deliveries created (JSON, parsed faster than two text[] arrays); null when none. */
  deliveries: DeliveryKey[] | null;
}

/** The `webhooks` follower's cursor, for `reconcileOutbox`; the start of the outbox before its first fan-out. */
export function readWebhookCursor(pool: Pool): Promise<OutboxCursor> {
  return readOutboxCursor(pool, WEBHOOKS_CONSUMER);
}
