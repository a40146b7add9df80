import type { Logger, SendQueue } from '@mailroom/core';
import type { Pool } from '@mailroom/db';

const BATCH = 500;

/**
 * Finds emails that are due but unclaimed (their job was lost with Redis, never reached it, or
 * their worker died and the lease ran out) and tells the queue again. Job ids carry the due
 * time, so an email whose job still waits is not enqueued twice. Returns how many were found.
 */
export async function reconcileSends(pool: Pool, sendQueue: SendQueue, logger: Logger): Promise<number> {
  let found = 0;
  let after = '';
  for (;;) {
    const { rows } = await pool.query<{ id: string; next_attempt_at: Date }>({
      name: 'mailroom-reconcile-due',
      text: `SELECT id, next_attempt_at FROM emails
              WHERE next_attempt_at <= now() AND (lease_expires_at IS NULL OR lease_expires_at < now()) AND id > $1
              ORDER BY id LIMIT $2`,
      values: [after, BATCH],
    });
    if (rows.length === 0) break;
    await sendQueue.enqueueDue(rows.map((r) => ({ emailId: r.id, dueAt: r.next_attempt_at })));
    found += rows.length;
    after = rows[rows.length - 1]?.id ?? after;
    if (rows.length < BATCH) break;
  }
  if (found > 0) logger.info({ found }, 'reconciler re-enqueued due emails');
  return found;
}
