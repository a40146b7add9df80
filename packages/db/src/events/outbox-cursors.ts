import type { PoolClient, Queryable } from '../pool';
import { OUTBOX_START, type OutboxCursor } from './read-outbox';

/**
 * Locks a follower's row of `outbox_cursors` (creating it at the start of the outbox the
 * first time) for the caller's transaction, and answers its cursor. With `skipLocked`, answers
 * null at once when another transaction holds it (another replica is following right now)
 * instead of waiting for it.
 */
export async function lockOutboxCursor(client: PoolClient, consumer: string, options: { skipLocked?: boolean } = {}): Promise<OutboxCursor | null> {
  await client.query({
    name: 'mailroom-outbox-cursor-ensure',
    text: 'INSERT INTO outbox_cursors (consumer) VALUES ($1) ON CONFLICT DO NOTHING',
    values: [consumer],
  });
  const { rows } = await client.query<OutboxCursor>(
    options.skipLocked
      ? {
          name: 'mailroom-outbox-cursor-try-lock',
          text: 'SELECT xact_id::text AS "xactId", position::text AS position FROM outbox_cursors WHERE consumer = $1 FOR UPDATE SKIP LOCKED',
          values: [consumer],
        }
      : {
          name: 'mailroom-outbox-cursor-lock',
          text: 'SELECT xact_id::text AS "xactId", position::text AS position FROM outbox_cursors WHERE consumer = $1 FOR UPDATE',
          values: [consumer],
        },
  );
  return rows[0] ?? null;
}

/** Moves a follower's cursor, in the transaction that holds its lock and did the work. */
export async function moveOutboxCursor(client: PoolClient, consumer: string, cursor: OutboxCursor): Promise<void> {
  await client.query({
    name: 'mailroom-outbox-cursor-move',
    text: 'UPDATE outbox_cursors SET xact_id = $2::xid8, position = $3::bigint, updated_at = now() WHERE consumer = $1',
    values: [consumer, cursor.xactId, cursor.position],
  });
}

/** A follower's cursor without locking it; the start of the outbox before its first move. */
export async function readOutboxCursor(db: Queryable, consumer: string): Promise<OutboxCursor> {
  const { rows } = await db.query<OutboxCursor>({
    name: 'mailroom-outbox-cursor-read',
    text: 'SELECT xact_id::text AS "xactId", position::text AS position FROM outbox_cursors WHERE consumer = $1',
    values: [consumer],
  });
  return rows[0] ?? OUTBOX_START;
}
