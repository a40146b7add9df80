import { idFloor } from '@mailroom/core';
import { inTransaction, type Pool } from '../pool';
import { WEBHOOKS_CONSUMER } from './fan-out';

// Event ids are made when the event is written, a moment after the time it records (an attempt's
// start, a buffered click) and on another process's clock: the id range searched for events
// since `since` starts this much earlier (ms), and created_at decides.
const ID_CLOCK_MARGIN_MS = 3_600_000;

/**
 * Marks for re-delivery every event of this endpoint (of this project) since `since` that it
 * has not received, as the next attempt, `manual`, due now:
 *
 * - deliveries created at or after `since` that ended failed (their retries ran out, or the
 *   endpoint was disabled before they were attempted) become pending again;
 * - events created at or after `since`, and after the endpoint itself, that it subscribes to
 *   (type and route as the fan-out matches them) but that have no delivery to it because it was
 *   disabled when they were fanned out, get one. Only events the fan-out has already passed:
 *   later ones it delivers itself, on the schedule.
 *
 * Durable in PostgreSQL, so the dispatcher's reconciler finds them whatever Redis does;
 * manual attempts go out even while the endpoint is disabled. Returns how many events were marked,
 * or null when the endpoint is not the project's (or was deleted meanwhile). The endpoint is
 * locked first (against a delete, not against the recorder or a PATCH), as every writer of its
 * deliveries does.
 */
export async function markForRecovery(pool: Pool, args: { projectId: string; webhookId: string; since: Date }): Promise<number | null> {
  return inTransaction(pool, async (client) => {
    const endpoint = await client.query({
      text: 'SELECT 1 FROM webhooks WHERE id = $1 AND project_id = $2 FOR KEY SHARE',
      values: [args.webhookId, args.projectId],
    });
    if ((endpoint.rowCount ?? 0) === 0) return null;
    const failed = await client.query({
      name: 'mailroom-webhook-recover',
      text: `UPDATE webhook_deliveries d SET state = 'pending', manual = true, next_attempt_at = now(), lease_until = NULL, updated_at = now()
              WHERE d.webhook_id = $2 AND d.project_id = $1 AND d.state = 'failed' AND d.created_at >= $3::timestamptz`,
      values: [args.projectId, args.webhookId, args.since.toISOString()],
    });
    // created_at holds the UTC wall time: `since` is compared as such.
    const missed = await client.query({
      name: 'mailroom-webhook-recover-missed',
      text: `INSERT INTO webhook_deliveries (event_id, webhook_id, project_id, manual)
             SELECT e.id, w.id, w.project_id, true
               FROM webhooks w
               JOIN outbox_cursors c ON c.consumer = $5
               JOIN email_events e ON e.project_id = w.project_id AND e.id >= $4
                                  AND e.created_at >= ($3::timestamptz AT TIME ZONE 'UTC') AND e.created_at >= w.created_at
                                  AND e.type = ANY (w.events)
                                  AND (w.route_id IS NULL OR w.route_id = e.data ->> 'route_id')
                                  AND (e.xact_id, e.position) <= (c.xact_id, c.position)
              WHERE w.id = $2 AND w.project_id = $1
                AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.webhook_id = w.id)
             ON CONFLICT DO NOTHING`,
      values: [args.projectId, args.webhookId, args.since.toISOString(), idFloor('event', args.since.getTime() - ID_CLOCK_MARGIN_MS), WEBHOOKS_CONSUMER],
    });
    return (failed.rowCount ?? 0) + (missed.rowCount ?? 0);
  });
}
