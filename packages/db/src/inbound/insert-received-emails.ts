import type { Queryable } from '../pool';

/** One stored copy of a received message: what one project (or the feedback handling) sees. */
export interface ReceivedCopy {
  /** inb_… */
  id: string;
  /** Null only for a report to fbl@BOUNCE_DOMAIN, whose sent email is not known yet. */
  projectId: string | null;
  kind: 'route' | 'feedback';
  /** This project's matched routes in RCPT order (empty for feedback). */
  routeIds: string[];
  /** For feedback at a VERP address: the email_recipients row it names. */
  feedbackRecipientId: string | null;
  /** This copy's envelope recipients only, in RCPT order. */
  rcptTo: string[];
}

/** A message as received over SMTP, with the copies to store for it. */
export interface ReceivedMessage {
  /** MAIL FROM; "" for the null sender. */
  mailFrom: string;
  remoteAddress: string | null;
  helo: string | null;
  /** The exact bytes after DATA's dot-unstuffing. */
  raw: Buffer;
  copies: ReceivedCopy[];
}

/**
 * Stores the copies of any number of messages in one statement (so atomically, and in one
 * commit when called outside a transaction). The raw bytes of all messages travel once, as
 * one binary parameter that each row slices (a message with several copies is sent once), so
 * the statement's text never changes and is prepared once per connection.
 */
export async function insertReceivedEmails(db: Queryable, messages: readonly ReceivedMessage[]): Promise<void> {
  let offset = 0;
  const rows = messages.flatMap((m) => {
    const start = offset;
    offset += m.raw.length;
    return m.copies.map((c) => ({
      id: c.id,
      project_id: c.projectId,
      kind: c.kind,
      route_ids: c.routeIds,
      feedback_recipient_id: c.feedbackRecipientId,
      mail_from: m.mailFrom,
      rcpt_to: c.rcptTo,
      remote_address: m.remoteAddress,
      helo: m.helo,
      size: m.raw.length,
      start,
    }));
  });
  if (rows.length === 0) return;
  await db.query({
    name: 'mailroom-insert-received-emails',
    text: `INSERT INTO received_emails (id, project_id, kind, route_ids, feedback_recipient_id, mail_from, rcpt_to,
                                        remote_address, helo, raw, size, "references")
           SELECT v.id, v.project_id, v.kind::"ReceivedKind", v.route_ids, v.feedback_recipient_id, v.mail_from, v.rcpt_to,
                  v.remote_address, v.helo, substring($2::bytea FROM v.start + 1 FOR v.size), v.size, '{}'
             FROM jsonb_to_recordset($1::jsonb) AS v(id text, project_id text, kind text, route_ids text[],
                    feedback_recipient_id text, mail_from text, rcpt_to text[], remote_address text, helo text, size int, start int)`,
    values: [JSON.stringify(rows), messages.length === 1 ? messages[0]?.raw : Buffer.concat(messages.map((m) => m.raw), offset)],
  });
}
