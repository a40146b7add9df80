import { isId } from '@mailroom/core';
import type { EmailEventSubject } from '../emails';
import type { Queryable } from '../pool';

/** A sent email a received report is about, with every recipient it has. */
export interface SentEmail {
  email: EmailEventSubject;
  /** `attempts`: delivery attempts recorded for it (0: never sent, as far as the sender has committed). */
  recipients: { id: string; address: string; attempts: number }[];
}

const SELECT_SENT_EMAIL = `
SELECT json_build_object('id', e.id, 'projectId', e.project_id, 'from', e.from_header, 'to', e."to", 'subject', e.subject, 'tags', e.tags) AS email,
       (SELECT json_agg(json_build_object('id', r.id, 'address', r.address, 'attempts', r.attempts) ORDER BY r.id) FROM email_recipients r WHERE r.email_id = e.id) AS recipients
  FROM emails e`;

interface SentEmailRow {
  email: EmailEventSubject;
  recipients: SentEmail['recipients'] | null;
}

const toSentEmail = (row: SentEmailRow | undefined): SentEmail | null => (row ? { email: row.email, recipients: row.recipients ?? [] } : null);

/**
 * The sent email of one recipient (`rcpt_…`, as a VERP return path names it), or null when the
 * recipient is unknown or deleted with its email.
 */
export async function findSentEmailByRecipient(db: Queryable, recipientId: string): Promise<SentEmail | null> {
  const { rows } = await db.query<SentEmailRow>({
    name: 'mailroom-feedback-email-by-recipient',
    text: `${SELECT_SENT_EMAIL} WHERE e.id = (SELECT email_id FROM email_recipients WHERE id = $1)`,
    values: [recipientId],
  });
  return toSentEmail(rows[0]);
}

/**
 * The sent email whose Message-ID this is (angle brackets optional), or null. Mailroom's
 * Message-IDs are `<em_…@from-domain>`, so the email is found by its primary key and the whole
 * id then compared (case-insensitively, as some MTAs fold case): no scan of `emails`. A
 * Message-ID of any other form names no email Mailroom sent.
 */
export async function findSentEmailByMessageId(db: Queryable, messageId: string): Promise<SentEmail | null> {
  const bare = messageId.trim().replace(/^<|>$/g, '').trim();
  const at = bare.lastIndexOf('@');
  if (at <= 0) return null;
  const local = bare.slice(0, at);
  const emailId = `em_${local.slice(3).toUpperCase()}`;
  if (!local.toLowerCase().startsWith('em_') || !isId('email', emailId)) return null;
  const { rows } = await db.query<SentEmailRow>({
    name: 'mailroom-feedback-email-by-message-id',
    text: `${SELECT_SENT_EMAIL} WHERE e.id = $1 AND lower(btrim(e.message_id, '<>')) = lower($2)`,
    values: [emailId, bare],
  });
  return toSentEmail(rows[0]);
}
