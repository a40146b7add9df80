import type { Logger, openQueue, queues } from '@mailroom/core';
import { findUnprocessedReceivedEmails, type Queryable } from '@mailroom/db';

/** A message is left to its own job this long after arrival before the reconciler steps in, in s. */
export const RECONCILE_GRACE_SECONDS = 30;
const BATCH = 500;

type InboundProducer = Pick<ReturnType<typeof openQueue<typeof queues.inbound.payload>>, 'add'>;

/**
 * Re-enqueues received emails still unprocessed some time after arrival: their job was lost
 * with Redis, or the process died while working on them. Job ids name the batch, so a batch
 * still waiting is not enqueued twice; processing skips what another run already stored.
 * Returns how many were found.
 */
export async function reconcileReceived(db: Queryable, inbound: InboundProducer, logger: Logger, graceSeconds = RECONCILE_GRACE_SECONDS): Promise<number> {
  let found = 0;
  let afterId = '';
  for (;;) {
    const ids = await findUnprocessedReceivedEmails(db, { olderThanSeconds: graceSeconds, afterId, limit: BATCH });
    if (ids.length === 0) break;
    await inbound.add({ receivedEmailIds: ids }, { jobId: `reconcile-${ids[0]}-${ids.length}` });
    found += ids.length;
    afterId = ids[ids.length - 1] ?? afterId;
    if (ids.length < BATCH) break;
  }
  if (found > 0) logger.info({ found }, 'reconciler re-enqueued unprocessed received emails');
  return found;
}
