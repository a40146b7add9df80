import type { Queryable } from '../pool';

/**
 * Deletes received emails older than `olderThanDays` (by the database's clock), at most `batchSize` per statement so
 * no transaction holds many rows (their attachments go with them, ON DELETE CASCADE). Their
 * `email.received` events stay in the outbox. Returns how many were deleted.
 */
export async function deleteExpiredReceivedEmails(db: Queryable, options: { olderThanDays: number; batchSize?: number }): Promise<number> {
  const batchSize = options.batchSize ?? 500;
  let deleted = 0;
  for (;;) {
    const { rowCount } = await db.query({
      name: 'mailroom-delete-expired-received',
      text: `DELETE FROM received_emails
              WHERE id IN (SELECT id FROM received_emails WHERE created_at < now() - make_interval(days => $1) ORDER BY created_at LIMIT $2)`,
      values: [options.olderThanDays, batchSize],
    });
    deleted += rowCount ?? 0;
    if ((rowCount ?? 0) < batchSize) return deleted;
  }
}
