import type { Queryable } from '../pool';

/** One accepted send, ready to store. Tracking flags left null take the project's defaults. */
export interface NewEmail {
  id: string;
  projectId: string;
  from: string;
  fromAddress: string;
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo: string[];
  subject: string;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  tags: { name: string; value: string }[];
  scheduledAt: Date | null;
  trackOpens: boolean | null;
  trackClicks: boolean | null;
  messageId: string;
  status: 'queued' | 'scheduled';
  nextAttemptAt: Date;
  recipients: { id: string; address: string; kind: 'to' | 'cc' | 'bcc' }[];
  attachments: { id: string; filename: string; contentType: string | null; contentId: string | null; content: Buffer }[];
}

// Emails and recipients travel as one JSON document each, so one prepared statement inserts
// any number of them; the recipients' insert runs in the same statement, hence atomically.
const INSERT_EMAILS = `
WITH v AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS v(
    id text, project_id text, from_header text, from_address text, "to" text[], cc text[], bcc text[], reply_to text[],
    subject text, html text, text text, headers jsonb, tags jsonb, scheduled_at timestamptz, track_opens boolean,
    track_clicks boolean, message_id text, status text, next_attempt_at timestamptz)
), e AS (
  INSERT INTO emails (id, project_id, from_header, from_address, "to", cc, bcc, reply_to, subject, html, text, headers, tags,
                      scheduled_at, track_opens, track_clicks, message_id, status, next_attempt_at, created_at, updated_at)
  SELECT v.id, v.project_id, v.from_header, v.from_address, v."to", v.cc, v.bcc, v.reply_to, v.subject, v.html, v.text, v.headers, v.tags, v.scheduled_at,
         coalesce(v.track_opens, p.track_opens), coalesce(v.track_clicks, p.track_clicks),
         v.message_id, v.status::"DeliveryStatus", v.next_attempt_at, now(), now()
    FROM v JOIN projects p ON p.id = v.project_id
  RETURNING id
), r AS (
  INSERT INTO email_recipients (id, email_id, address, kind, status, attempts, updated_at)
  SELECT r.id, r.email_id, r.address, r.kind::"RecipientKind", r.status::"DeliveryStatus", 0, now()
    FROM jsonb_to_recordset($2::jsonb) AS r(id text, email_id text, address text, kind text, status text)
  RETURNING 1
)
SELECT count(*) FROM e`;

const INSERT_ATTACHMENTS = `
INSERT INTO email_attachments (id, email_id, position, filename, content_type, content_id, content)
SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::bytea[])`;

/**
 * Stores emails with their recipients in one statement, and their attachments in a second
 * when there are any: callers storing attachments run it inside a transaction.
 */
export async function insertEmails(db: Queryable, emails: readonly NewEmail[]): Promise<void> {
  const emailRows = emails.map((e) => ({
    id: e.id,
    project_id: e.projectId,
    from_header: e.from,
    from_address: e.fromAddress,
    to: e.to,
    cc: e.cc,
    bcc: e.bcc,
    reply_to: e.replyTo,
    subject: e.subject,
    html: e.html,
    text: e.text,
    headers: e.headers,
    tags: e.tags,
    scheduled_at: e.scheduledAt?.toISOString() ?? null,
    track_opens: e.trackOpens,
    track_clicks: e.trackClicks,
    message_id: e.messageId,
    status: e.status,
    next_attempt_at: e.nextAttemptAt.toISOString(),
  }));
  const recipientRows = emails.flatMap((e) => e.recipients.map((r) => ({ id: r.id, email_id: e.id, address: r.address, kind: r.kind, status: e.status })));
  await db.query({
    name: 'mailroom-insert-emails',
    text: INSERT_EMAILS,
    values: [JSON.stringify(emailRows), JSON.stringify(recipientRows)],
  });
  const attachments = emails.flatMap((e) => e.attachments.map((a, position) => ({ ...a, emailId: e.id, position })));
  if (attachments.length > 0) {
    await db.query({
      text: INSERT_ATTACHMENTS,
      values: [
        attachments.map((a) => a.id),
        attachments.map((a) => a.emailId),
        attachments.map((a) => a.position),
        attachments.map((a) => a.filename),
        attachments.map((a) => a.contentType),
        attachments.map((a) => a.contentId),
        attachments.map((a) => a.content),
      ],
    });
  }
}
