import type { Logger, SendQueue } from '@mailroom/core';
import type { Database } from '@mailroom/db';

const BATCH = 500;

/**
 * Finds emails that are due but unclaimed (their job was lost with Redis, never reached it, or
 * their worker died and the lease ran out) and tells the queue again. Job ids carry the due
 * time, so an email whose job still waits is not enqueued twice. Returns how many were found.
 */
export async function reconcileSends(db: Database, sendQueue: SendQueue, logger: Logger): Promise<number> {
  let found = 0;
  let after = '';
  for (;;) {
    const due = await db.email.findMany({
      where: {
        id: { gt: after },
        nextAttemptAt: { lte: new Date() },
        OR: [{ leaseExpiresAt: null }, { leaseExpiresAt: { lt: new Date() } }],
      },
      select: { id: true, nextAttemptAt: true },
      orderBy: { id: 'asc' },
      take: BATCH,
    });
    if (due.length === 0) break;
    await sendQueue.enqueue(due.map((e) => ({ emailId: e.id, dueAt: e.nextAttemptAt as Date })));
    found += due.length;
    after = due[due.length - 1]?.id ?? after;
    if (due.length < BATCH) break;
  }
  if (found > 0) logger.info({ found }, 'reconciler re-enqueued due emails');
  return found;
}
