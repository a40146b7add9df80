import { markForRecovery, type Pool } from '@mailroom/db';

/**
 * Durable recover (DESIGN §4): marks every event of this endpoint whose delivery ended failed
 * since `since` for re-delivery as a manual attempt, in PostgreSQL; returns how many, or null
 * when the endpoint was deleted meanwhile. The dispatcher does the work in the background:
 * wake it with `WebhookQueue.wakeDispatcher()` (`@mailroom/core`) after this returns, or its
 * next reconcile tick finds them.
 */
export function requestRecovery(pool: Pool, args: { projectId: string; webhookId: string; since: Date }): Promise<number | null> {
  return markForRecovery(pool, args);
}
