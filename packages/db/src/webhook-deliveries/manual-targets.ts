import { TEST_EVENT_TYPE } from '@mailroom/core';
import { appendEvents } from '../events';
import { inTransaction, type Pool, type Queryable } from '../pool';
import { TARGET_COLUMNS, toDeliveryTarget, type DeliveryTarget, type DeliveryTargetRow } from './delivery-target';

/**
 * What a replay of this endpoint delivers (DESIGN §5): the event of its most recent failed
 * attempt that has not been delivered to it since. Null when there is none, or when the
 * endpoint is not one of this project's.
 */
export async function findReplayTarget(db: Queryable, projectId: string, webhookId: string): Promise<DeliveryTarget | null> {
  const { rows } = await db.query<DeliveryTargetRow>({
    name: 'mailroom-webhook-replay-target',
    text: `SELECT ${TARGET_COLUMNS}
             FROM webhook_attempts a
             JOIN webhooks w ON w.id = a.webhook_id
             JOIN webhook_deliveries d ON d.event_id = a.event_id AND d.webhook_id = a.webhook_id
             JOIN email_events e ON e.id = a.event_id
            WHERE a.webhook_id = $2 AND w.project_id = $1 AND NOT a.success AND d.state <> 'succeeded'
              -- Not while the dispatcher posts it (a lease), nor once a recover has queued it: both would post it too.
              AND (d.lease_until IS NULL OR d.lease_until <= now()) AND NOT (d.state = 'pending' AND d.manual)
              AND NOT EXISTS (SELECT 1 FROM webhook_attempts s WHERE s.webhook_id = a.webhook_id AND s.event_id = a.event_id AND s.success)
            ORDER BY a.id DESC
            LIMIT 1`,
    values: [projectId, webhookId],
  });
  const row = rows[0];
  return row ? { ...toDeliveryTarget(row), manual: true } : null;
}

/**
 * Appends a `webhook.test` event for the endpoint and its delivery row, leased for
 * `leaseSeconds` by the caller who posts it now (no retries). Null when the endpoint is not
 * one of this project's.
 */
export async function createTestDelivery(pool: Pool, args: { projectId: string; webhookId: string; leaseSeconds: number }): Promise<DeliveryTarget | null> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ id: string }>({
      name: 'mailroom-webhook-test-endpoint',
      text: 'SELECT id FROM webhooks WHERE id = $1 AND project_id = $2 FOR SHARE',
      values: [args.webhookId, args.projectId],
    });
    if (rows.length === 0) return null;
    const [eventId] = await appendEvents(client, [
      {
        projectId: args.projectId,
        subject: { kind: 'webhook', webhookId: args.webhookId },
        type: TEST_EVENT_TYPE,
        data: { webhook_id: args.webhookId, message: 'This is a test event from Mailroom.' },
      },
    ]);
    const { rows: targets } = await client.query<DeliveryTargetRow>({
      name: 'mailroom-webhook-test-delivery',
      text: `WITH d AS (
               INSERT INTO webhook_deliveries (event_id, webhook_id, project_id, next_attempt_at, lease_until, manual)
               VALUES ($1, $2, $3, NULL, now() + make_interval(secs => $4), true)
               RETURNING *)
             SELECT ${TARGET_COLUMNS} FROM d JOIN webhooks w ON w.id = d.webhook_id JOIN email_events e ON e.id = d.event_id`,
      values: [eventId, args.webhookId, args.projectId, args.leaseSeconds],
    });
    return toDeliveryTarget(targets[0] as DeliveryTargetRow);
  });
}
