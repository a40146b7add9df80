import { newId, summarizeEmailStatus, type DeliveryStatus, type EmailEventData, type SmtpReplyData, type WebhookEventType } from '@mailroom/core';
import { inTransaction, type Pool, type PoolClient } from '../pool';
import { eventData, type EmailEventSubject } from './event-data';

/** What happened to one recipient at one attempt (or before any, when suppressed). */
export type RecipientOutcome =
  | { kind: 'delivered'; smtp: SmtpReplyData }
  | { kind: 'deferred'; smtp: SmtpReplyData | null; error: string; nextAttemptAt: Date }
  | { kind: 'failed'; smtp: SmtpReplyData | null; error: string }
  | { kind: 'bounced'; smtp: SmtpReplyData; bounceType: 'hard' | 'soft' | 'policy'; suppress: boolean }
  | { kind: 'suppressed' };

export interface RecipientAttempt {
  email: EmailEventSubject;
  recipient: { id: string; address: string; attempts: number };
  outcome: RecipientOutcome;
  /** When the attempt began; the `email.sent` event of a first attempt carries it. */
  startedAt: Date;
  /** When it ended. */
  endedAt: Date;
}

const STATUS_OF: Record<RecipientOutcome['kind'], DeliveryStatus> = {
  delivered: 'delivered',
  deferred: 'delivery_delayed',
  failed: 'failed',
  bounced: 'bounced',
  suppressed: 'suppressed',
};

const EVENT_OF: Record<RecipientOutcome['kind'], WebhookEventType> = {
  delivered: 'email.delivered',
  deferred: 'email.delivery_delayed',
  failed: 'email.failed',
  bounced: 'email.bounced',
  suppressed: 'email.suppressed',
};

interface EventRow {
  id: string;
  project_id: string;
  email_id: string;
  type: WebhookEventType;
  recipient: string;
  data: EmailEventData;
  created_at: string;
}

/**
 * Records recipients' outcomes, any number at once, in one transaction: each recipient's
 * status, next attempt and, at its first attempt, when that began; its events (`email.sent` on a first attempt, then the outcome),
 * written to the outbox, the one boundary events pass through; a suppression for 5.1.x
 * bounces; and each touched email's summarised status and last event. Emails are locked in id
 * order so concurrent writers neither interleave summaries nor deadlock.
 */
export async function recordOutcomes(pool: Pool, attempts: readonly RecipientAttempt[]): Promise<void> {
  if (attempts.length === 0) return;
  const events: EventRow[] = [];
  for (const a of attempts) {
    const base = { project_id: a.email.projectId, email_id: a.email.id, recipient: a.recipient.address };
    if (a.outcome.kind !== 'suppressed' && a.recipient.attempts === 0) {
      events.push({ ...base, id: newId('event'), type: 'email.sent', data: eventData(a.email, a.recipient.address, { attempt: 1 }), created_at: a.startedAt.toISOString() });
    }
    const attempt = a.outcome.kind === 'suppressed' ? a.recipient.attempts : a.recipient.attempts + 1;
    events.push({
      ...base,
      id: newId('event'),
      type: EVENT_OF[a.outcome.kind],
      data: eventData(a.email, a.recipient.address, outcomeData(a.outcome, attempt)),
      created_at: a.endedAt.toISOString(),
    });
  }
  const emailIds = [...new Set(attempts.map((a) => a.email.id))].sort();

  await inTransaction(pool, async (client) => {
    await client.query({ name: 'mailroom-lock-emails', text: 'SELECT id FROM emails WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE', values: [emailIds] });
    await updateRecipients(client, attempts);
    await insertSuppressions(client, attempts);
    await client.query({
      name: 'mailroom-insert-events',
      text: `INSERT INTO email_events (id, project_id, email_id, type, recipient, data, created_at)
             SELECT e.id, e.project_id, e.email_id, e.type, e.recipient, e.data, e.created_at
               FROM jsonb_to_recordset($1::jsonb) AS e(id text, project_id text, email_id text, type text, recipient text, data jsonb, created_at timestamptz)`,
      values: [JSON.stringify(events)],
    });
    await summarise(client, emailIds);
  });
}

async function updateRecipients(client: PoolClient, attempts: readonly RecipientAttempt[]): Promise<void> {
  const rows = attempts.map((a) => ({
    id: a.recipient.id,
    status: STATUS_OF[a.outcome.kind],
    attempts: a.outcome.kind === 'suppressed' ? a.recipient.attempts : a.recipient.attempts + 1,
    next_attempt_at: a.outcome.kind === 'deferred' ? a.outcome.nextAttemptAt.toISOString() : null,
    last_response: lastResponse(a.outcome),
    // Kept from the first attempt on (COALESCE below); a suppressed recipient has none.
    attempted_at: a.outcome.kind === 'suppressed' ? null : a.startedAt.toISOString(),
  }));
  await client.query({
    name: 'mailroom-update-recipients',
    text: `UPDATE email_recipients r
              SET status = v.status::"DeliveryStatus", attempts = v.attempts, next_attempt_at = v.next_attempt_at,
                  last_response = v.last_response, first_attempt_at = coalesce(r.first_attempt_at, v.attempted_at AT TIME ZONE 'UTC'), updated_at = now()
             FROM jsonb_to_recordset($1::jsonb) AS v(id text, status text, attempts int, next_attempt_at timestamptz, last_response text, attempted_at timestamptz)
            WHERE r.id = v.id`,
    values: [JSON.stringify(rows)],
  });
}

async function insertSuppressions(client: PoolClient, attempts: readonly RecipientAttempt[]): Promise<void> {
  const rows = attempts.flatMap((a) =>
    a.outcome.kind === 'bounced' && a.outcome.suppress
      ? [{ project_id: a.email.projectId, address: a.recipient.address.toLowerCase(), detail: a.outcome.smtp.message.slice(0, 1000), source_email_id: a.email.id }]
      : [],
  );
  if (rows.length === 0) return;
  await client.query({
    text: `INSERT INTO suppressions (project_id, address, reason, detail, source_email_id, created_at)
           SELECT s.project_id, s.address, 'bounce', s.detail, s.source_email_id, now()
             FROM jsonb_to_recordset($1::jsonb) AS s(project_id text, address text, detail text, source_email_id text)
           ON CONFLICT (project_id, address) DO NOTHING`,
    values: [JSON.stringify(rows)],
  });
}

/** Recomputes the status of each email from all its recipients, and its last event. */
async function summarise(client: PoolClient, emailIds: readonly string[]): Promise<void> {
  const { rows } = await client.query<{ email_id: string; statuses: DeliveryStatus[] }>({
    name: 'mailroom-recipient-statuses',
    text: 'SELECT email_id, array_agg(status::text) AS statuses FROM email_recipients WHERE email_id = ANY($1::text[]) GROUP BY email_id',
    values: [emailIds],
  });
  const summaries = rows.map((r) => ({ id: r.email_id, status: summarizeEmailStatus(r.statuses) }));
  await client.query({
    name: 'mailroom-update-email-status',
    text: `UPDATE emails e
              SET status = v.status::"DeliveryStatus",
                  last_event = (SELECT type FROM email_events WHERE email_id = e.id ORDER BY created_at DESC, id DESC LIMIT 1),
                  updated_at = now()
             FROM jsonb_to_recordset($1::jsonb) AS v(id text, status text)
            WHERE e.id = v.id`,
    values: [JSON.stringify(summaries)],
  });
}

function lastResponse(outcome: RecipientOutcome): string | null {
  if ('smtp' in outcome && outcome.smtp) {
    const { code, enhanced_code, message } = outcome.smtp;
    // The reply as the server gave it, e.g. "451 4.7.1 Greylisted", for GET /emails/{id}.
    return [code, enhanced_code, message].filter((part) => part !== null && part !== '').join(' ').slice(0, 1000);
  }
  if ('error' in outcome) return outcome.error.slice(0, 1000);
  return null;
}

function outcomeData(outcome: RecipientOutcome, attempt: number): Partial<EmailEventData> {
  switch (outcome.kind) {
    case 'delivered':
      return { attempt, smtp: outcome.smtp };
    case 'deferred':
    case 'failed':
      return { attempt, smtp: outcome.smtp ?? { code: null, enhanced_code: null, message: outcome.error } };
    case 'bounced':
      return { attempt, smtp: outcome.smtp, bounce: { type: outcome.bounceType, code: outcome.smtp.enhanced_code, message: outcome.smtp.message } };
    case 'suppressed':
      return {};
  }
}
