import type { DueDelivery } from '@mailroom/core';
import type { Queryable } from '../pool';
import { FAILING_DISABLE_DAYS } from './record-attempts';

/**
 * Pending deliveries due for at least `graceSeconds` that nobody holds (no lease, or an expired
 * one): their job was lost with Redis, never reached it, or their dispatcher died mid-attempt.
 * The grace keeps the reconciler off deliveries whose job is simply still waiting in a
 * backlog. Ordered by due time; page with `after` (the last one's key).
 */
export async function findStrandedDeliveries(
  db: Queryable,
  options: { graceSeconds: number; limit: number; after?: DueDelivery },
): Promise<DueDelivery[]> {
  const after = options.after;
  const { rows } = await db.query<{ event_id: string; webhook_id: string; next_attempt_at: Date }>({
    name: 'mailroom-webhook-stranded',
    text: `SELECT event_id, webhook_id, next_attempt_at FROM webhook_deliveries
            WHERE state = 'pending' AND next_attempt_at <= now() - make_interval(secs => $1)
              AND (lease_until IS NULL OR lease_until < now())
              AND ($3::timestamptz IS NULL OR (next_attempt_at, event_id, webhook_id) > ($3::timestamptz, $4, $5))
            ORDER BY next_attempt_at, event_id, webhook_id
            LIMIT $2`,
    values: [options.graceSeconds, options.limit, after?.dueAt.toISOString() ?? null, after?.eventId ?? '', after?.webhookId ?? ''],
  });
  return rows.map((r) => ({ eventId: r.event_id, webhookId: r.webhook_id, dueAt: r.next_attempt_at }));
}

/**
 * Disables (`failing`) every enabled endpoint failing for 5 days without a success, then
 * stops the pending deliveries of every disabled endpoint that nobody holds (state `failed`,
 * no attempt), except those whose next attempt is manual. Returns the endpoints disabled.
 *
 * Every pending delivery but a manual one has a next attempt (only `webhook.test`'s is pending
 * without one, and it is manual), so `next_attempt_at IS NOT NULL` changes no answer; it lets the
 * index on next_attempt_at find the pending ones. Without it each run read a disabled endpoint's
 * whole history through (webhook_id, created_at): 59,500 delivered rows, every minute, forever.
 */
export async function disableFailingEndpoints(db: Queryable): Promise<number> {
  const { rowCount } = await db.query({
    name: 'mailroom-webhook-disable-failing',
    text: `UPDATE webhooks SET enabled = false, disabled_reason = 'failing', updated_at = now()
            WHERE enabled AND failing_since < now() - make_interval(days => $1)`,
    values: [FAILING_DISABLE_DAYS],
  });
  await db.query({
    name: 'mailroom-webhook-stop-disabled',
    text: `UPDATE webhook_deliveries d SET state = 'failed', next_attempt_at = NULL, updated_at = now()
             FROM webhooks w
            WHERE w.id = d.webhook_id AND NOT w.enabled AND d.state = 'pending' AND NOT d.manual
              AND d.next_attempt_at IS NOT NULL
              AND (d.lease_until IS NULL OR d.lease_until < now())`,
  });
  return rowCount ?? 0;
}
