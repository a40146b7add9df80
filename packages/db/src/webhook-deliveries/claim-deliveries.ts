import type { DeliveryKey } from '@mailroom/core';
import type { Pool } from '../pool';
import { TARGET_COLUMNS, toDeliveryTarget, type DeliveryTarget, type DeliveryTargetRow } from './delivery-target';

// A job may fire a moment before its row's due time (clocks of Redis, Node and PostgreSQL).
const EARLY_SLACK_SECONDS = 2;

/**
 * Takes a lease of `leaseSeconds` on those of `keys` that are pending, due and unclaimed, and
 * returns what their attempts need. A delivery whose endpoint was disabled meanwhile stops
 * here (state `failed`, no attempt), unless its next attempt is manual (recover); a deleted
 * endpoint's rows are gone with it. Anything else (already delivered, leased by another
 * dispatcher, not yet due) is left alone: a job for it was a duplicate. In outbox order, which
 * the runner posts them in: a recipient's `email.sent` goes before the outcome committed with it
 * (no order is promised, as posts run in parallel, but a receiver mostly sees them so).
 */
export async function claimDeliveries(pool: Pool, keys: readonly DeliveryKey[], leaseSeconds: number): Promise<DeliveryTarget[]> {
  if (keys.length === 0) return [];
  const { rows } = await pool.query<DeliveryTargetRow & { claimed: boolean }>({
    // Each key is looked up on its own (LATERAL ... LIMIT 1: one row by primary key) and the
    // rows are updated by their ctid. Joined as sets instead, the planner, with no statistics
    // yet (a fresh burst) or at some tens of thousands of rows, read the whole table or every
    // delivery of the endpoint for each claim. Unnamed, so planned with the table as it is.
    text: `WITH found AS (
             SELECT x.ctid AS row_id
               FROM unnest($1::text[], $2::text[]) AS k(event_id, webhook_id)
               CROSS JOIN LATERAL (SELECT d.ctid FROM webhook_deliveries d
                                    WHERE d.event_id = k.event_id AND d.webhook_id = k.webhook_id LIMIT 1) x),
           touched AS (
             UPDATE webhook_deliveries d SET
                    state = CASE WHEN w.enabled OR d.manual THEN d.state ELSE 'failed' END,
                    next_attempt_at = CASE WHEN w.enabled OR d.manual THEN d.next_attempt_at END,
                    lease_until = CASE WHEN w.enabled OR d.manual THEN now() + make_interval(secs => $3) END,
                    updated_at = now()
               FROM webhooks w
              WHERE d.ctid = ANY (ARRAY(SELECT row_id FROM found))
                AND w.id = d.webhook_id AND d.state = 'pending' AND (d.lease_until IS NULL OR d.lease_until < now())
                AND (NOT (w.enabled OR d.manual) OR d.next_attempt_at - make_interval(secs => $4) <= now())
             RETURNING d.*, w.enabled OR d.manual AS claimed)
           SELECT ${TARGET_COLUMNS}
             FROM touched d JOIN webhooks w ON w.id = d.webhook_id JOIN email_events e ON e.id = d.event_id
            WHERE d.claimed
            ORDER BY e.position`,
    values: [keys.map((k) => k.eventId), keys.map((k) => k.webhookId), leaseSeconds, EARLY_SLACK_SECONDS],
  });
  return rows.map(toDeliveryTarget);
}

/** Gives back leases taken by `claimDeliveries` for attempts that were not made (a stopping dispatcher). */
export async function releaseDeliveries(pool: Pool, keys: readonly DeliveryKey[]): Promise<void> {
  if (keys.length === 0) return;
  await pool.query({
    name: 'mailroom-webhook-release',
    text: `UPDATE webhook_deliveries d SET lease_until = NULL, updated_at = now()
             FROM unnest($1::text[], $2::text[]) AS k(event_id, webhook_id)
            WHERE d.event_id = k.event_id AND d.webhook_id = k.webhook_id AND d.state = 'pending'`,
    values: [keys.map((k) => k.eventId), keys.map((k) => k.webhookId)],
  });
}

/**
 * Stops scheduled deliveries a dispatcher had claimed but not posted, because their endpoint was
 * disabled or deleted meanwhile (DESIGN §5): `failed` without an attempt, as a claim would have
 * left them. One whose endpoint is enabled again by now gets its lease back instead, and the
 * reconciler hands it out again; a manual one (recover) is left alone. A deleted endpoint's rows
 * are gone already.
 */
export async function stopDeliveries(pool: Pool, keys: readonly DeliveryKey[]): Promise<void> {
  if (keys.length === 0) return;
  await pool.query({
    name: 'mailroom-webhook-stop-claimed',
    text: `UPDATE webhook_deliveries d SET
                  state = CASE WHEN w.enabled THEN d.state ELSE 'failed' END,
                  next_attempt_at = CASE WHEN w.enabled THEN d.next_attempt_at END,
                  lease_until = NULL, updated_at = now()
             FROM unnest($1::text[], $2::text[]) AS k(event_id, webhook_id), webhooks w
            WHERE d.event_id = k.event_id AND d.webhook_id = k.webhook_id AND w.id = d.webhook_id
              AND d.state = 'pending' AND NOT d.manual`,
    values: [keys.map((k) => k.eventId), keys.map((k) => k.webhookId)],
  });
}
