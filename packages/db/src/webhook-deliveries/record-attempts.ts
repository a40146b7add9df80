import { newId } from '@mailroom/core';
import { inTransaction, type Pool, type Queryable } from '../pool';
import { type AttemptRow, toWebhookAttempt, type WebhookAttempt } from './attempt-row';
import { type EndpointTarget, PREVIOUS_SECRET_COLUMN } from './delivery-target';

/** How long an endpoint may fail without a single success before it is disabled as `failing`. */
export const FAILING_DISABLE_DAYS = 5;

/**
 * The outcome of one POST, to be written to the log, its delivery row and its endpoint: an
 * attempt row but for its id and number (given when written). `nextRetryAt`: when a failed
 * scheduled attempt is tried again; null when it is not (schedule exhausted, manual, gone).
 */
export interface AttemptRecord extends Omit<WebhookAttempt, 'id' | 'attempt'> {
  /** Made under the delivery's lease (scheduled, recover, test): the lease is released. A replay holds none. */
  leased: boolean;
  /** The response said the endpoint is gone (410): it is disabled. */
  gone: boolean;
}

/**
 * Writes attempts in one statement (one transaction, one round trip): an attempt row each
 * (numbered after its delivery's previous attempts), the delivery rows (succeeded; pending until `nextRetryAt`; or failed),
 * and the endpoints (last success, failing since, disabled after a 410 or 5 days of failures).
 * A replay (`leased: false`) that fails leaves its delivery as it was: a pending retry stays
 * scheduled. Attempts whose delivery row is gone (endpoint deleted) are dropped. Returns the
 * attempt rows written.
 */
export async function recordAttempts(db: Queryable, records: readonly AttemptRecord[]): Promise<WebhookAttempt[]> {
  if (records.length === 0) return [];
  const { rows } = await db.query<AttemptRow>({
    name: 'mailroom-webhook-record-attempts',
    text: `${RECORD_ATTEMPTS} SELECT ${INSERTED_COLUMNS} FROM inserted`,
    values: recordValues(records),
  });
  return rows.map(toWebhookAttempt);
}

/**
 * Records a replay's attempt. On success the event's pending retry is cancelled (the delivery
 * row says so), and the failed attempts whose `nextRetryAt` was still to come stop naming a
 * retry that will not happen: the log's `nextRetryAt` is null when no retry follows. One transaction.
 */
export async function recordReplay(pool: Pool, record: AttemptRecord): Promise<WebhookAttempt | null> {
  return inTransaction(pool, async (tx) => {
    const [attempt] = await recordAttempts(tx, [record]);
    if (attempt?.success) {
      await tx.query({
        text: `UPDATE webhook_attempts SET next_retry_at = NULL
                WHERE webhook_id = $1 AND event_id = $2 AND next_retry_at > ($3::timestamptz AT TIME ZONE 'UTC')`,
        values: [record.webhookId, record.eventId, record.createdAt.toISOString()],
      });
    }
    return attempt ?? null;
  });
}

/** What `writeAttempts` answers. */
export interface WrittenAttempts {
  /** Attempt rows written. */
  written: number;
  /**
   * The batch's endpoints that receive no more scheduled deliveries: disabled (by this batch, a
   * 410 or five days of failures, or before it) or deleted. Their deliveries already claimed
   * must not be posted (DESIGN §5: a disabled or deleted endpoint's pending deliveries stop).
   */
  stopped: string[];
  /**
   * The batch's endpoints still enabled, with their URL and secrets as they are now. Deliveries
   * already claimed carry them as they were at the claim: a PATCH of the URL or a rotation since
   * must reach those before they are posted.
   */
  endpoints: EndpointTarget[];
}

/**
 * `recordAttempts` for a writer that needs no rows back (the dispatcher's group commit): the
 * same statement, answering only how many attempts were written, which endpoints are no longer
 * enabled and where the others are posted now, so no attempt row is sent back and parsed.
 */
export async function writeAttempts(pool: Pool, records: readonly AttemptRecord[]): Promise<WrittenAttempts> {
  if (records.length === 0) return { written: 0, stopped: [], endpoints: [] };
  return inTransaction(pool, async (client) => {
    // Each delivery row found by its primary key. A burst's webhook_deliveries grows (and its
    // updated rows leave dead versions) faster than statistics follow, and the planner, costing
    // a small table, hashed the batch and read the whole table for every batch (9 ms for
    // 4,500 rows, growing with the burst). Set for this transaction only; with it, the plan is
    // the same whatever the statistics, so the statement is prepared once and its plan reused
    // (planning it cost PostgreSQL about 0.7 ms per batch).
    await client.query('SET LOCAL enable_seqscan = off');
    const { rows } = await client.query<WrittenAttempts>({
      name: 'mailroom-webhook-write-attempts',
      // `endpoints` answers the batch's endpoints that still exist, as updated: the others were deleted.
      text: `${RECORD_ATTEMPTS} SELECT (SELECT count(*)::int FROM inserted) AS written,
               ARRAY(SELECT s.webhook_id FROM json_to_recordset($2::json) AS s(webhook_id text)
                      WHERE NOT EXISTS (SELECT 1 FROM endpoints e WHERE e.id = s.webhook_id AND e.enabled)) AS stopped,
               (SELECT COALESCE(json_agg(json_build_object('webhookId', e.id, 'url', e.url, 'secretCiphertext', e.secret_ciphertext,
                                                           'previousSecretCiphertext', e.previous_secret_ciphertext)), '[]')
                  FROM endpoints e WHERE e.enabled) AS endpoints`,
      values: recordValues(records),
    });
    return rows[0] ?? { written: 0, stopped: [], endpoints: [] };
  });
}

/** The statement's parameters: the attempts ($1), the endpoints' summary ($2) and FAILING_DISABLE_DAYS ($3). */
function recordValues(records: readonly AttemptRecord[]): unknown[] {
  const rows = records.map((r) => ({
    id: newId('webhookAttempt'),
    event_id: r.eventId,
    webhook_id: r.webhookId,
    event_type: r.eventType,
    trigger: r.trigger,
    url: r.url,
    response_status: r.responseStatus,
    // PostgreSQL text cannot hold NUL.
    response_body: r.responseBody?.replaceAll('\u0000', '') ?? null,
    duration_ms: Math.max(0, Math.round(r.durationMs)),
    error: r.error,
    success: r.success,
    next_retry_at: r.nextRetryAt?.toISOString() ?? null,
    created_at: r.createdAt.toISOString(),
    leased: r.leased,
  }));
  return [JSON.stringify(rows), JSON.stringify(summarise(records)), FAILING_DISABLE_DAYS];
}

// The batch's endpoints locked in id order, before their deliveries: dispatchers recording at
// once touch the same endpoints, and an update's own order (its join's) could lock them in
// opposite orders and deadlock, losing both batches' records. The delivery update joins these
// rows, so a delivery is updated only after its endpoint is locked: every writer of an
// endpoint's deliveries (a delete, a recover, the reconciler) takes the endpoint first.
const LOCK_ENDPOINTS = `SELECT w.id FROM webhooks w
            WHERE w.id IN (SELECT s.webhook_id FROM json_to_recordset($2::json) AS s(webhook_id text))
            ORDER BY w.id FOR NO KEY UPDATE`;

// The endpoints' side of a batch ($2: `summarise`, $3: FAILING_DISABLE_DAYS). failing_since is
// set by the first failure after a success (or ever) and cleared by a success. Answers each
// endpoint as it is now (a PATCH or a rotation that committed meanwhile included: the rows are locked).
const UPDATE_ENDPOINTS = `UPDATE webhooks w SET
             last_success_at = CASE WHEN s.last_success IS NULL THEN w.last_success_at
                                    ELSE GREATEST(w.last_success_at, s.last_success) END,
             failing_since = CASE WHEN s.last_success IS NOT NULL THEN s.first_failure
                                  ELSE COALESCE(w.failing_since, s.first_failure) END,
             enabled = w.enabled AND NOT s.gone
                       AND NOT (s.last_success IS NULL AND COALESCE(w.failing_since, s.first_failure) < now() - make_interval(days => $3)),
             disabled_reason = CASE WHEN NOT w.enabled THEN w.disabled_reason
                                    WHEN s.gone THEN 'gone'::"WebhookDisabledReason"
                                    WHEN s.last_success IS NULL AND COALESCE(w.failing_since, s.first_failure) < now() - make_interval(days => $3)
                                      THEN 'failing'::"WebhookDisabledReason"
                                    ELSE w.disabled_reason END,
             updated_at = now()
             FROM json_to_recordset($2::json) AS s(webhook_id text, last_success timestamptz, first_failure timestamptz, gone boolean), locked l
            WHERE w.id = s.webhook_id AND l.id = w.id
           RETURNING w.id, w.enabled, w.url, w.secret_ciphertext, ${PREVIOUS_SECRET_COLUMN} AS previous_secret_ciphertext`;

// The log's timestamps are UTC wall times without a zone, as Prisma writes them and
// `listWebhookAttempts` reads them, whatever the session's time zone: written and answered as such.
const INSERTED_COLUMNS = `id, webhook_id, event_id, event_type, attempt, trigger, url, response_status, response_body, duration_ms, error,
  success, next_retry_at AT TIME ZONE 'UTC' AS next_retry_at, created_at AT TIME ZONE 'UTC' AS created_at`;

// Writes the attempts ($1), their deliveries and endpoints; the caller adds the final SELECT over `inserted`.
const RECORD_ATTEMPTS = `WITH x AS (
             SELECT * FROM json_to_recordset($1::json) AS x(id text, event_id text, webhook_id text, event_type text, trigger text, url text,
               response_status int, response_body text, duration_ms int, error text, success boolean, next_retry_at timestamptz,
               created_at timestamptz, leased boolean)),
           locked AS (${LOCK_ENDPOINTS}),
           d AS (
             UPDATE webhook_deliveries d SET
               attempts = d.attempts + 1,
               scheduled_attempts = d.scheduled_attempts + CASE WHEN x.trigger = 'scheduled' THEN 1 ELSE 0 END,
               state = CASE WHEN x.success THEN 'succeeded'::"WebhookDeliveryState"
                            WHEN x.next_retry_at IS NOT NULL THEN 'pending'::"WebhookDeliveryState"
                            WHEN NOT x.leased THEN d.state
                            ELSE 'failed'::"WebhookDeliveryState" END,
               next_attempt_at = CASE WHEN x.success THEN NULL
                                      WHEN x.next_retry_at IS NOT NULL THEN x.next_retry_at
                                      WHEN NOT x.leased THEN d.next_attempt_at
                                      ELSE NULL END,
               lease_until = CASE WHEN x.leased THEN NULL ELSE d.lease_until END,
               manual = CASE WHEN x.leased THEN false ELSE d.manual END,
               updated_at = now()
               FROM x JOIN locked l ON l.id = x.webhook_id
              WHERE d.event_id = x.event_id AND d.webhook_id = x.webhook_id
             RETURNING d.event_id, d.webhook_id, d.attempts),
           endpoints AS (${UPDATE_ENDPOINTS}),
           inserted AS (
           INSERT INTO webhook_attempts (id, webhook_id, event_id, event_type, attempt, trigger, url, response_status, response_body,
                                         duration_ms, error, success, next_retry_at, created_at)
           SELECT x.id, x.webhook_id, x.event_id, x.event_type, d.attempts, x.trigger::"WebhookTrigger", x.url, x.response_status,
                  x.response_body, x.duration_ms, x.error, x.success, x.next_retry_at AT TIME ZONE 'UTC', x.created_at AT TIME ZONE 'UTC'
             FROM x JOIN d ON d.event_id = x.event_id AND d.webhook_id = x.webhook_id
           RETURNING *)`;

/** Per endpoint: its newest success in the batch, the first failure after it, and whether it answered 410. */
function summarise(records: readonly AttemptRecord[]) {
  const byEndpoint = new Map<string, AttemptRecord[]>();
  for (const r of records) {
    const list = byEndpoint.get(r.webhookId);
    if (list) list.push(r);
    else byEndpoint.set(r.webhookId, [r]);
  }
  return [...byEndpoint].map(([webhookId, list]) => {
    const sorted = [...list].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    const lastSuccess = sorted.filter((r) => r.success).at(-1)?.createdAt ?? null;
    const firstFailure = sorted.find((r) => !r.success && (lastSuccess === null || r.createdAt > lastSuccess))?.createdAt ?? null;
    return {
      webhook_id: webhookId,
      last_success: lastSuccess?.toISOString() ?? null,
      first_failure: firstFailure?.toISOString() ?? null,
      gone: list.some((r) => r.gone),
    };
  });
}

