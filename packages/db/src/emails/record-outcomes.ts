import { summarizeEmailStatus, type DeliveryStatus } from '@mailroom/core';
import { inTransaction, type Pool, type PoolClient } from '../pool';
import { applyOutcome, eventTypeOf, isAttempt, type OutcomeRecord, type RecipientState, type Suppression } from './apply-outcome';
import { insertEvents, type EmailEventRow } from './insert-events';

export { isAttempt } from './apply-outcome';
export type { FeedbackOutcome, OutcomeRecord, RecipientAttempt, RecipientFeedback, RecipientOutcome } from './apply-outcome';

interface LockedRecipient {
  id: string;
  email_id: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_response: string | null;
  first_attempt_at: string | null;
  /** How many recipients the email has: when all are in the batch, its status follows from their states alone. */
  recipients: number;
}

/**
 * The one writer of outcomes, from any source: the sender's attempts (under its lease), late
 * DSNs, complaints, simulated outcomes. Any number at once, in one transaction: the touched
 * emails and recipients are locked (in email id order, so concurrent writers neither deadlock
 * nor lose updates), each recipient's current row is read and every outcome applied to it in
 * order under DESIGN §4's transitions (see applyOutcome), except replays of a report already
 * recorded (same recipient, event type and source key, looked up under those locks, so two
 * writers applying one report at once record it once), then the events are written to the
 * outbox and, in one statement, the recipients, suppressions and each email's summarised
 * status and last event. A batch of replays alone writes nothing. Round trips: BEGIN, the
 * locks, the events, the rest, COMMIT (plus the replay check for keyed reports, and the other
 * recipients' statuses for an email only some of whose recipients are in the batch).
 * Returns how many events were appended:
 * when any were, the caller notifies the `events` queue once this has returned (committed).
 */
export async function recordOutcomes(pool: Pool, records: readonly OutcomeRecord[]): Promise<number> {
  if (records.length === 0) return 0;
  const emailIds = [...new Set(records.map((r) => r.email.id))].sort();
  const recipientIds = [...new Set(records.map((r) => r.recipient.id))];

  return inTransaction(pool, async (client) => {
    const { states, emails } = await lockRecipients(client, emailIds, recipientIds);
    const recorded = await recordedReports(client, records);
    const changed = new Set<string>();
    const events: EmailEventRow[] = [];
    const suppressions: Suppression[] = [];
    for (const record of records) {
      const state = states.get(record.recipient.id);
      if (!state) continue; // deleted with its email
      const report = reportKey(record);
      if (report !== null) {
        if (recorded.has(report)) continue;
        recorded.add(report);
      }
      const applied = applyOutcome(state, record);
      if (applied.state !== state) {
        states.set(record.recipient.id, applied.state);
        changed.add(record.recipient.id);
      }
      events.push(...applied.events);
      if (applied.suppression) suppressions.push(applied.suppression);
    }
    if (changed.size === 0 && events.length === 0) return 0;
    const others = await otherRecipientStatuses(client, emails, recipientIds);
    const summaries = [...emails].map(([id, { touched }]) => ({
      id,
      status: summarizeEmailStatus([...touched.map((r) => states.get(r)!.status), ...(others.get(id) ?? [])]),
    }));
    await insertEvents(client, events);
    await writeOutcomes(client, [...changed].map((id) => ({ id, state: states.get(id)! })), suppressions, summaries);
    return events.length;
  });
}

/** Identifies the report an outcome came from, per recipient and event type; null without a source key. */
function reportKey(record: OutcomeRecord): string | null {
  if (isAttempt(record) || record.sourceKey === undefined) return null;
  return JSON.stringify([record.email.id, record.recipient.address, eventTypeOf(record), record.sourceKey]);
}

/**
 * The reports among `records` already recorded, as reportKey gives them. Read after the
 * recipients are locked: a writer that waited for a lock sees what the holder committed.
 */
async function recordedReports(client: PoolClient, records: readonly OutcomeRecord[]): Promise<Set<string>> {
  const keyed = records.flatMap((r) => (!isAttempt(r) && r.sourceKey !== undefined ? [{ emailId: r.email.id, sourceKey: r.sourceKey }] : []));
  if (keyed.length === 0) return new Set();
  const { rows } = await client.query<{ email_id: string; recipient: string; type: string; source_key: string }>({
    name: 'mailroom-recorded-reports',
    text: `SELECT email_id, recipient, type, source_key FROM email_events
            WHERE email_id = ANY($1::text[]) AND source_key = ANY($2::text[])`,
    values: [[...new Set(keyed.map((k) => k.emailId))], [...new Set(keyed.map((k) => k.sourceKey))]],
  });
  return new Set(rows.map((r) => JSON.stringify([r.email_id, r.recipient, r.type, r.source_key])));
}

interface LockedEmail {
  /** Its recipients in the batch. */
  touched: string[];
  recipients: number;
}

/**
 * Locks the emails and then their touched recipients, in (email id, recipient id) order, and
 * reads the recipients as they are now: after waiting for a lock, PostgreSQL re-reads the row.
 * next_attempt_at is read as written (zoneless text, converted back the same way when written);
 * first_attempt_at holds UTC without a zone, as Prisma writes it.
 */
async function lockRecipients(
  client: PoolClient,
  emailIds: readonly string[],
  recipientIds: readonly string[],
): Promise<{ states: Map<string, RecipientState>; emails: Map<string, LockedEmail> }> {
  const { rows } = await client.query<LockedRecipient>({
    name: 'mailroom-lock-recipients',
    text: `SELECT r.id, r.email_id, r.status::text AS status, r.attempts,
                  to_json(r.next_attempt_at) #>> '{}' AS next_attempt_at, r.last_response,
                  to_json(r.first_attempt_at AT TIME ZONE 'UTC') #>> '{}' AS first_attempt_at,
                  (SELECT count(*) FROM email_recipients c WHERE c.email_id = e.id)::int AS recipients
             FROM emails e JOIN email_recipients r ON r.email_id = e.id
            WHERE e.id = ANY($1::text[]) AND r.id = ANY($2::text[])
            ORDER BY e.id, r.id
              FOR UPDATE OF e, r`,
    values: [emailIds, recipientIds],
  });
  const states = new Map<string, RecipientState>();
  const emails = new Map<string, LockedEmail>();
  for (const r of rows) {
    states.set(r.id, { status: r.status, attempts: r.attempts, nextAttemptAt: r.next_attempt_at, lastResponse: r.last_response, firstAttemptAt: r.first_attempt_at });
    const email = emails.get(r.email_id);
    if (email) email.touched.push(r.id);
    else emails.set(r.email_id, { touched: [r.id], recipients: r.recipients });
  }
  return { states, emails };
}

/**
 * The statuses of the recipients outside the batch, of the emails that have any. Read in a
 * statement of its own, after the locks: it sees every writer that committed before them, and
 * no writer changes them until this transaction ends (each locks the email first).
 */
async function otherRecipientStatuses(client: PoolClient, emails: ReadonlyMap<string, LockedEmail>, recipientIds: readonly string[]): Promise<Map<string, DeliveryStatus[]>> {
  const partial = [...emails].filter(([, e]) => e.touched.length < e.recipients).map(([id]) => id);
  if (partial.length === 0) return new Map();
  const { rows } = await client.query<{ email_id: string; statuses: DeliveryStatus[] }>({
    name: 'mailroom-other-recipient-statuses',
    text: `SELECT email_id, array_agg(status::text) AS statuses FROM email_recipients
            WHERE email_id = ANY($1::text[]) AND NOT (id = ANY($2::text[])) GROUP BY email_id`,
    values: [partial, recipientIds],
  });
  return new Map(rows.map((r) => [r.email_id, r.statuses]));
}

/**
 * Writes the recipients' new states, the suppressions (an address already suppressed keeps its
 * first reason) and each email's status and last event, in one statement. The events are
 * already written (an earlier statement), so the last event is read from the timeline.
 */
async function writeOutcomes(
  client: PoolClient,
  recipients: readonly { id: string; state: RecipientState }[],
  suppressions: readonly Suppression[],
  summaries: readonly { id: string; status: DeliveryStatus }[],
): Promise<void> {
  await client.query({
    name: 'mailroom-write-outcomes',
    text: `WITH recipients AS (
             UPDATE email_recipients r
                SET status = v.status::"DeliveryStatus", attempts = v.attempts, next_attempt_at = v.next_attempt_at,
                    last_response = v.last_response, first_attempt_at = v.first_attempt_at AT TIME ZONE 'UTC', updated_at = now()
               FROM jsonb_to_recordset($1::jsonb) AS v(id text, status text, attempts int, next_attempt_at timestamptz, last_response text, first_attempt_at timestamptz)
              WHERE r.id = v.id
           ), suppressed AS (
             INSERT INTO suppressions (project_id, address, reason, detail, source_email_id, created_at)
             SELECT s.project_id, s.address, s.reason::"SuppressionReason", s.detail, s.source_email_id, now()
               FROM jsonb_to_recordset($2::jsonb) AS s(project_id text, address text, reason text, detail text, source_email_id text)
             ON CONFLICT (project_id, address) DO NOTHING
           )
           UPDATE emails e
              SET status = v.status::"DeliveryStatus",
                  last_event = (SELECT type FROM email_events WHERE email_id = e.id ORDER BY created_at DESC, id DESC LIMIT 1),
                  updated_at = now()
             FROM jsonb_to_recordset($3::jsonb) AS v(id text, status text)
            WHERE e.id = v.id`,
    values: [
      JSON.stringify(
        recipients.map(({ id, state }) => ({
          id,
          status: state.status,
          attempts: state.attempts,
          next_attempt_at: state.nextAttemptAt,
          last_response: state.lastResponse,
          first_attempt_at: state.firstAttemptAt,
        })),
      ),
      JSON.stringify(suppressions.map((s) => ({ project_id: s.projectId, address: s.address, reason: s.reason, detail: s.detail, source_email_id: s.sourceEmailId }))),
      JSON.stringify(summaries),
    ],
  });
}
