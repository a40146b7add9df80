import type { Queryable } from '../pool';

/** The queues whose backlog is measured in PostgreSQL, named as in the queue catalog. */
export type BacklogQueue = 'send' | 'webhook-deliveries' | 'inbound';

export const BACKLOG_QUEUES: readonly BacklogQueue[] = ['send', 'webhook-deliveries', 'inbound'];

/**
 * What "due work" is, per queue, in one place: the rows a worker should be working on now,
 * whatever Redis holds (a delayed or prioritised BullMQ job sits in a sorted set a list length
 * misses; a job Redis lost is still work). `since` is when each became due, for the age of the
 * oldest. Each `where` is served by an index (`emails(next_attempt_at)`,
 * `webhook_deliveries(next_attempt_at)`, `received_emails(processed_at, created_at)`).
 */
const DUE_WORK: Record<BacklogQueue, { table: string; where: string; since: string }> = {
  // Emails with a recipient due now (being worked on included: their next_attempt_at stays until release).
  send: { table: 'emails', where: 'next_attempt_at <= now()', since: 'next_attempt_at' },
  // (event, endpoint) deliveries pending and due; retries waiting for their time are not counted.
  'webhook-deliveries': { table: 'webhook_deliveries', where: "state = 'pending' AND next_attempt_at <= now()", since: 'next_attempt_at' },
  // Received messages stored (250 given) and not yet parsed, authenticated and announced.
  inbound: { table: 'received_emails', where: 'processed_at IS NULL', since: 'created_at' },
};

/** Counting stops here, so the query's cost stays bounded however large the backlog. */
export const DUE_COUNT_LIMIT = 100_000;

/**
 * The count of due work as one SQL statement: the query KEDA's `postgresql` triggers run
 * (k8s/base/sender.yaml, webhook-dispatcher.yaml hold this exact text; a test compares them),
 * and the count `mailroom_queue_due_items` exports.
 */
export function dueCountQuery(queue: BacklogQueue): string {
  const { table, where } = DUE_WORK[queue];
  return `SELECT count(*) FROM (SELECT 1 FROM ${table} WHERE ${where} LIMIT ${DUE_COUNT_LIMIT}) AS due`;
}

export interface Backlog {
  /** Due items, at most DUE_COUNT_LIMIT. */
  due: number;
  /** Seconds since the oldest due item became due (database clock); 0 when nothing is due. */
  oldestDueAgeSeconds: number;
}

/** Reads one queue's backlog in one round trip: the bounded count and the oldest due item's age. */
export async function readBacklog(db: Queryable, queue: BacklogQueue): Promise<Backlog> {
  const { table, where, since } = DUE_WORK[queue];
  const { rows } = await db.query<{ due: string; oldest: number | null }>({
    name: `mailroom-backlog-${queue}`,
    text: `SELECT (${dueCountQuery(queue)}) AS due,
                  extract(epoch FROM now() - (SELECT min(${since}) FROM ${table} WHERE ${where}))::float8 AS oldest`,
  });
  const row = rows[0];
  return { due: Number(row?.due ?? 0), oldestDueAgeSeconds: Math.max(0, row?.oldest ?? 0) };
}
