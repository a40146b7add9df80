import type { Logger, SendQueue } from '@mailroom/core';
import type { Pool } from '@mailroom/db';

const BATCH = 500;

/**
 * Finds emails due for at least `graceSeconds` but unclaimed (their job was lost with Redis,
 * never reached it, or their worker died and the lease ran out) and tells the queue again. The
 * grace (the sender passes LEASE_SECONDS) keeps it off emails whose job is simply still
 * waiting behind a backlog: re-telling each of those as a job of its own would double the
 * queue's work just when it is busiest. Job ids carry the due time, so an email re-told twice
 * is enqueued once. Returns how many were found.
 */
export async function reconcileSends(pool: Pool, sendQueue: SendQueue, logger: Logger, graceSeconds: number): Promise<number> {
  let found = 0;
  let after = '';
  for (;;) {
    const { rows } = await pool.query<{ id: string; next_attempt_at: Date }>({
      name: 'mailroom-reconcile-due',
      text: `SELECT id, next_attempt_at FROM emails
              WHERE next_attempt_at <= now() - make_interval(secs => $3) AND (lease_expires_at IS NULL OR lease_expires_at < now()) AND id > $1
              ORDER BY id LIMIT $2`,
      values: [after, BATCH, graceSeconds],
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
