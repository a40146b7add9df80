import { conflict } from '@mailroom/core';
import { markForRecovery, type Pool, withTryLock } from '@mailroom/db';

/**
 * The advisory lock a replay of an endpoint holds while it posts, and a recover while it marks,
 * on every replica: neither waits for the other, the second is refused (409). Otherwise the
 * event being replayed, still failed until its answer, would be marked by the recover and posted
 * again once the replay had delivered it.
 */
export const replayLock = (webhookId: string) => `mailroom-webhook-replay\0${webhookId}`;

/**
 * Durable recover (DESIGN §4): marks every event of this endpoint whose delivery ended failed
 * since `since` for re-delivery as a manual attempt, in PostgreSQL; returns how many, or null
 * when the endpoint was deleted meanwhile; 409 `conflict` while a replay (or another recover) of
 * it is in progress. The dispatcher does the work in the background: wake it with
 * `WebhookQueue.wakeDispatcher()` (`@mailroom/core`) after this returns, or its next reconcile
 * tick finds them.
 */
export async function requestRecovery(pool: Pool, args: { projectId: string; webhookId: string; since: Date }): Promise<number | null> {
  const marked = await withTryLock(pool, replayLock(args.webhookId), () => markForRecovery(pool, args));
  if (!marked.locked) throw conflict('A replay or recover of this endpoint is in progress; try again once it has answered.');
  return marked.value;
}
