import { idFloor } from '@mailroom/core';
import type { Queryable } from '../pool';

/**
 * Deletes received emails older than `olderThanDays`, at most `batchSize` per statement so no
 * transaction holds many rows (their attachments go with them, ON DELETE CASCADE). Age is read
 * from the id's time (a ULID), so the primary key finds them and the table needs no index on
 * `created_at`, which would cost every store before the 250. Their `email.received` events
 * stay in the outbox. Returns how many were deleted.
 */
export async function deleteExpiredReceivedEmails(
  db: Queryable,
  options: { olderThanDays: number; batchSize?: number; now?: Date },
): Promise<number> {
  const batchSize = options.batchSize ?? 500;
  const cutoff = idFloor('receivedEmail', (options.now ?? new Date()).getTime() - options.olderThanDays * 86_400_000);
  let deleted = 0;
  for (;;) {
    const { rowCount } = await db.query({
      name: 'mailroom-delete-expired-received',
      // = ANY (ARRAY(…)): each row found by its key. As `IN (SELECT …)` the planner may join the
      // page to a sequential scan of the whole table (query-plans.test.ts).
      text: `DELETE FROM received_emails
              WHERE id = ANY (ARRAY(SELECT id FROM received_emails WHERE id < $1 ORDER BY id LIMIT $2))`,
      values: [cutoff, batchSize],
    });
    deleted += rowCount ?? 0;
    if ((rowCount ?? 0) < batchSize) return deleted;
  }
}
