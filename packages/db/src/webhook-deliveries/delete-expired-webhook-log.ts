import { idFloor } from '@mailroom/core';
import type { Queryable } from '../pool';

/**
 * Deletes the webhook attempt log and the finished deliveries past retention: attempts made
 * more than `olderThanDays` ago, and deliveries (succeeded or failed, never pending) of events
 * made that long ago. Both ages are read from ids (ULIDs), so primary keys find the rows.
 * Recover reaches 14 days back and replay the endpoint's newest failures, so with a retention of
 * at least 15 days neither meets a row this has removed. At most `batchSize` rows a statement.
 * Returns how many attempts and deliveries were deleted.
 */
export async function deleteExpiredWebhookLog(
  db: Queryable,
  options: { olderThanDays: number; batchSize?: number; now?: Date },
): Promise<{ attempts: number; deliveries: number }> {
  const batchSize = options.batchSize ?? 1_000;
  const time = (options.now ?? new Date()).getTime() - options.olderThanDays * 86_400_000;
  let attempts = 0;
  for (;;) {
    const { rowCount } = await db.query({
      // = ANY (ARRAY(…)): each row found by its key. As `IN (SELECT …)` the planner joined the page
      // to a sequential scan of the whole log (query-plans.test.ts).
      text: `DELETE FROM webhook_attempts WHERE id = ANY (ARRAY(SELECT id FROM webhook_attempts WHERE id < $1 ORDER BY id LIMIT $2))`,
      values: [idFloor('webhookAttempt', time), batchSize],
    });
    attempts += rowCount ?? 0;
    if ((rowCount ?? 0) < batchSize) break;
  }
  let deliveries = 0;
  let after = { eventId: '', webhookId: '' };
  for (;;) {
    const { rows } = await db.query<{ event_id: string | null; webhook_id: string | null; deleted: string }>({
      // Deleted by ctid, each row found by its address (joined to the page, the planner scanned
      // the whole table); a row updated meanwhile has moved and is left for the next run.
      text: `WITH batch AS (
               SELECT ctid AS row_id, event_id, webhook_id FROM webhook_deliveries
                WHERE (event_id, webhook_id) > ($1, $2) AND event_id < $3
                ORDER BY event_id, webhook_id LIMIT $4),
             gone AS (
               DELETE FROM webhook_deliveries
                WHERE ctid = ANY (ARRAY(SELECT row_id FROM batch)) AND state <> 'pending' RETURNING 1),
             last AS (SELECT event_id, webhook_id FROM batch ORDER BY event_id DESC, webhook_id DESC LIMIT 1)
           SELECT (SELECT event_id FROM last) AS event_id, (SELECT webhook_id FROM last) AS webhook_id, (SELECT count(*) FROM gone)::text AS deleted`,
      values: [after.eventId, after.webhookId, idFloor('event', time), batchSize],
    });
    const row = rows[0];
    deliveries += Number(row?.deleted ?? 0);
    if (!row?.event_id || !row.webhook_id) return { attempts, deliveries };
    after = { eventId: row.event_id, webhookId: row.webhook_id };
  }
}
