import type { Logger, SendQueue } from '@mailroom/core';
import type { Queryable } from '@mailroom/db';

const BATCH = 500;

/**
 * Finds emails due for at least `graceSeconds` but unclaimed (their job was lost with Redis,
 * never reached it, or their worker died and the lease ran out) and tells the queue again. The
 * grace (the sender passes LEASE_SECONDS) keeps it off emails whose job is simply still
 * waiting behind a backlog: re-telling each of those as a job of its own would double the
 * queue's work just when it is busiest. Job ids carry the due time, so an email re-told twice
 * is enqueued once. Returns how many were found.
 *
 * Pages in `emails(next_attempt_at)` order, so every plan reads only the due rows from that
 * index: ordered by id, a generic plan (one that does not know the parameters) walked the
 * primary key through every email, as a named statement's cached plan did. Unnamed, the
 * statement is also planned with its values each time (once a reconcile interval). The index
 * holds next_attempt_at alone, so a page re-reads the rows that share the previous page's last
 * due time, a handful unless many emails were scheduled for one instant.
 */
export async function reconcileSends(db: Queryable, sendQueue: SendQueue, logger: Logger, graceSeconds: number): Promise<number> {
  let found = 0;
  let after = { dueAt: '-infinity', id: '' };
  for (;;) {
    const { rows } = await db.query<{ id: string; next_attempt_at: Date }>({
      text: `SELECT id, next_attempt_at FROM emails
              WHERE next_attempt_at <= now() - make_interval(secs => $1) AND (next_attempt_at, id) > ($2::timestamptz, $3)
                AND (lease_expires_at IS NULL OR lease_expires_at < now())
              ORDER BY next_attempt_at, id LIMIT $4`,
      values: [graceSeconds, after.dueAt, after.id, BATCH],
    });
    if (rows.length === 0) break;
    await sendQueue.enqueueDue(rows.map((r) => ({ emailId: r.id, dueAt: r.next_attempt_at })));
    found += rows.length;
    const last = rows[rows.length - 1];
    if (!last || rows.length < BATCH) break;
    // Exact: next_attempt_at is a timestamp(3), as a Date is.
    after = { dueAt: last.next_attempt_at.toISOString(), id: last.id };
  }
  if (found > 0) logger.info({ found }, 'reconciler re-enqueued due emails');
  return found;
}
