import { idFloor } from '@mailroom/core';
import { deletePageByPage } from '../delete-page-by-page';
import type { Queryable } from '../pool';

/**
 * Deletes sent emails past retention (EMAIL_RETENTION_DAYS): made more than `olderThanDays`
 * ago, with nothing left to do (no next attempt: a far-future scheduled send stays) and no event
 * on their timeline for as long (a complaint that arrives late keeps its email another term).
 * Their recipients and attachments go with them (ON DELETE CASCADE) and their events too (the
 * trigger `email_events_follow_emails`); a pending webhook delivery of one of those events is
 * stopped (`failed`) in the same statement, since there is nothing left to post. The hourly
 * counts of /stats, suppressions and the webhook attempt log stay.
 *
 * Walks the primary key (ids are time-ordered ULIDs) from the oldest, at most `batchSize` emails
 * per statement so no transaction holds many rows; an email a producer holds locked right now is
 * skipped and met again next time. Returns how many were deleted.
 */
export async function deleteExpiredEmails(db: Queryable, options: { olderThanDays: number; batchSize?: number; now?: Date }): Promise<number> {
  const batchSize = options.batchSize ?? 500;
  const cutoff = idFloor('email', (options.now ?? new Date()).getTime() - options.olderThanDays * 86_400_000);
  return deletePageByPage(db, (after) => ({
    text: `WITH batch AS (
             SELECT id FROM emails WHERE id > $1 AND id < $2 ORDER BY id LIMIT $3),
           doomed AS (
             SELECT e.id FROM emails e JOIN batch b ON b.id = e.id
              WHERE e.next_attempt_at IS NULL
                AND NOT EXISTS (SELECT 1 FROM email_events v
                                 WHERE v.email_id = e.id AND v.created_at > now() - make_interval(days => $4))
                FOR UPDATE OF e SKIP LOCKED),
           stopped AS (
             UPDATE webhook_deliveries d SET state = 'failed', next_attempt_at = NULL, lease_until = NULL, updated_at = now()
               FROM email_events v
              WHERE v.email_id IN (SELECT id FROM doomed) AND d.event_id = v.id AND d.state = 'pending'),
           gone AS (
             DELETE FROM emails WHERE id IN (SELECT id FROM doomed) RETURNING id)
         SELECT (SELECT max(id) FROM batch) AS last, (SELECT count(*) FROM gone)::text AS deleted`,
    values: [after, cutoff, batchSize, options.olderThanDays],
  }));
}
