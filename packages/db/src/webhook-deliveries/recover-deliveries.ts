import type { Queryable } from '../pool';

/**
 * Marks for re-delivery every delivery of this endpoint (of this project) that ended failed
 * and was created at or after `since`: pending again, due now, its next attempt `manual`.
 * Durable in PostgreSQL, so the dispatcher's reconciler finds them whatever Redis does;
 * manual attempts go out even while the endpoint is disabled. Returns how many were marked.
 */
export async function markForRecovery(db: Queryable, args: { projectId: string; webhookId: string; since: Date }): Promise<number> {
  const { rowCount } = await db.query({
    name: 'mailroom-webhook-recover',
    text: `UPDATE webhook_deliveries d SET state = 'pending', manual = true, next_attempt_at = now(), lease_until = NULL, updated_at = now()
            WHERE d.webhook_id = $2 AND d.project_id = $1 AND d.state = 'failed' AND d.created_at >= $3::timestamptz`,
    values: [args.projectId, args.webhookId, args.since.toISOString()],
  });
  return rowCount ?? 0;
}
