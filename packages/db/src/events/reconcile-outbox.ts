import type { EventQueue } from '@mailroom/core';
import type { Queryable } from '../pool';
import { type OutboxCursor, readOutbox } from './read-outbox';

/**
 * Catches what a lost notification missed: when the outbox holds readable events after the
 * follower's cursor, tells the `events` queue again. Producers notify after every commit; a
 * notification lost with Redis (or never sent, the process having died between commit and
 * notify) leaves events waiting, which this finds on the next reconciler tick. Returns whether
 * it notified.
 */
export async function reconcileOutbox(db: Queryable, eventQueue: Pick<EventQueue, 'notify'>, cursor: OutboxCursor): Promise<boolean> {
  const { events } = await readOutbox(db, cursor, 1);
  if (events.length === 0) return false;
  await eventQueue.notify('reconcile');
  return true;
}
