import { idFloor } from '@mailroom/core';
import { deletePageByPage } from '../delete-page-by-page';
import type { Queryable } from '../pool';

/**
 * Deletes events past retention that are on no sent email's timeline (`email.received`,
 * `webhook.test`, `domain.updated`): made more than `olderThanDays` ago (read from the id, a
 * ULID, so the primary key finds them) and passed by every outbox follower (`outbox_cursors`),
 * so no follower can miss one. A sent email's events go with their email (deleteExpiredEmails).
 * A pending webhook delivery of a deleted event is stopped (`failed`) in the same statement.
 * At most `batchSize` events a statement. Returns how many were deleted.
 */
export async function deleteExpiredEvents(db: Queryable, options: { olderThanDays: number; batchSize?: number; now?: Date }): Promise<number> {
  const batchSize = options.batchSize ?? 1_000;
  const cutoff = idFloor('event', (options.now ?? new Date()).getTime() - options.olderThanDays * 86_400_000);
  return deletePageByPage(db, (after) => ({
    text: `WITH batch AS (
             SELECT id FROM email_events WHERE id > $1 AND id < $2 ORDER BY id LIMIT $3),
           doomed AS (
             SELECT e.id FROM email_events e JOIN batch b ON b.id = e.id
              WHERE e.email_id IS NULL
                AND NOT EXISTS (SELECT 1 FROM outbox_cursors c WHERE (e.xact_id, e.position) > (c.xact_id, c.position))),
           stopped AS (
             UPDATE webhook_deliveries d SET state = 'failed', next_attempt_at = NULL, lease_until = NULL, updated_at = now()
              WHERE d.event_id IN (SELECT id FROM doomed) AND d.state = 'pending'),
           gone AS (
             DELETE FROM email_events WHERE id IN (SELECT id FROM doomed) RETURNING id)
         SELECT (SELECT max(id) FROM batch) AS last, (SELECT count(*) FROM gone)::text AS deleted`,
    values: [after, cutoff, batchSize],
  }));
}
