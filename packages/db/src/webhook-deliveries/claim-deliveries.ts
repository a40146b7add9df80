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
 * dispatcher, not yet due) is left alone: a job for it was a duplicate.
 */
export async function claimDeliveries(pool: Pool, keys: readonly DeliveryKey[], leaseSeconds: number): Promise<DeliveryTarget[]> {
  if (keys.length === 0) return [];
  const { rows } = await pool.query<DeliveryTargetRow>({
    name: 'mailroom-webhook-claim',
    text: `WITH keys AS (SELECT * FROM unnest($1::text[], $2::text[]) AS k(event_id, webhook_id)),
           stopped AS (
             UPDATE webhook_deliveries d SET state = 'failed', next_attempt_at = NULL, lease_until = NULL, updated_at = now()
               FROM keys k, webhooks w
              WHERE d.event_id = k.event_id AND d.webhook_id = k.webhook_id AND w.id = d.webhook_id
                AND d.state = 'pending' AND NOT w.enabled AND NOT d.manual
                AND (d.lease_until IS NULL OR d.lease_until < now())
             RETURNING d.event_id),
           claimed AS (
             UPDATE webhook_deliveries d SET lease_until = now() + make_interval(secs => $3), updated_at = now()
               FROM keys k, webhooks w
              WHERE d.event_id = k.event_id AND d.webhook_id = k.webhook_id AND w.id = d.webhook_id
                AND d.state = 'pending' AND (w.enabled OR d.manual)
                AND (d.lease_until IS NULL OR d.lease_until < now())
                AND d.next_attempt_at <= now() + make_interval(secs => $4)
             RETURNING d.*)
           SELECT ${TARGET_COLUMNS}
             FROM claimed d JOIN webhooks w ON w.id = d.webhook_id JOIN email_events e ON e.id = d.event_id`,
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
