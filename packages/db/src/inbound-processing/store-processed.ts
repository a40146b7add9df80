import { newId } from '@mailroom/core';
import { appendEvents, type NewEvent } from '../events';
import { inTransaction, type Pool, type PoolClient } from '../pool';
import type { PendingReceivedEmail } from './load-received';
import { receivedEventId } from './received-event-id';

/** A mailbox as DESIGN §7 shows it. */
export interface ReceivedAddress {
  address: string;
  name: string | null;
}

/** One attachment, or inline part with a Content-ID, with its exact decoded bytes. */
export interface ParsedAttachment {
  filename: string | null;
  contentType: string;
  size: number;
  /** Without angle brackets. */
  contentId: string | null;
  disposition: string | null;
  content: Buffer;
}

/** What parsing a received message yields (DESIGN §7). */
export interface ReceivedContent {
  from: ReceivedAddress | null;
  to: ReceivedAddress[];
  cc: ReceivedAddress[];
  replyTo: ReceivedAddress[];
  subject: string | null;
  text: string | null;
  html: string | null;
  textReply: string | null;
  headers: { name: string; value: string }[];
  messageId: string | null;
  inReplyTo: string | null;
  references: string[];
  date: Date | null;
  attachments: ParsedAttachment[];
}

export interface ProcessedEmail {
  email: Pick<PendingReceivedEmail, 'id' | 'projectId' | 'kind' | 'routeIds' | 'rcptTo' | 'mailFrom' | 'createdAt'>;
  content: ReceivedContent;
  /** The verdicts, or null when they could not be had. */
  authentication: object | null;
  /** Kept when a message is stored after its processing kept failing. */
  processingError?: string | null;
}

export interface StoreResult {
  /** False when another processor had already stored it: nothing was written. */
  stored: boolean;
  eventIds: string[];
}

const UPDATE_RECEIVED = `
UPDATE received_emails
   SET from_address = $2::jsonb, "to" = $3::jsonb, cc = $4::jsonb, reply_to = $5::jsonb, subject = $6, text = $7, html = $8,
       text_reply = $9, headers = $10::jsonb, message_id = $11, in_reply_to = $12, "references" = $13::text[],
       date = ($14::timestamptz AT TIME ZONE 'UTC'), authentication = $15::jsonb, processing_error = coalesce($16, processing_error),
       processed_at = now()
 WHERE id = $1`;

const INSERT_ATTACHMENTS = `
INSERT INTO received_attachments (id, received_email_id, position, filename, content_type, size, content_id, disposition, content)
SELECT a.id, $1, a.position, a.filename, a.content_type, a.size, a.content_id, a.disposition, a.content
  FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::int[], $7::text[], $8::text[], $9::bytea[])
       AS a(id, position, filename, content_type, size, content_id, disposition, content)`;

/**
 * Stores a received email's parsed content and verdicts, its attachments and its
 * `email.received` events (one per route id, for `route` mail) in one transaction, and marks
 * it processed. The row is locked first: when it is already processed (another processor won
 * the race) nothing is written. Call `EventQueue.notify()` after it returns events.
 */
export async function storeProcessedEmail(pool: Pool, processed: ProcessedEmail): Promise<StoreResult> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ processed: boolean }>({
      name: 'mailroom-lock-received',
      text: 'SELECT processed_at IS NOT NULL AS processed FROM received_emails WHERE id = $1 FOR UPDATE',
      values: [processed.email.id],
    });
    if (rows.length === 0 || rows[0]?.processed) return { stored: false, eventIds: [] };
    await writeContent(client, processed);
    const eventIds = await appendEvents(client, receivedEvents(processed));
    return { stored: true, eventIds };
  });
}

async function writeContent(client: PoolClient, { email, content, authentication, processingError }: ProcessedEmail): Promise<void> {
  const json = (value: unknown) => JSON.stringify(value);
  await client.query({
    name: 'mailroom-store-processed-received',
    text: UPDATE_RECEIVED,
    values: [
      email.id,
      json(content.from),
      json(content.to),
      json(content.cc),
      json(content.replyTo),
      content.subject,
      content.text,
      content.html,
      content.textReply,
      json(content.headers),
      content.messageId,
      content.inReplyTo,
      content.references,
      content.date?.toISOString() ?? null,
      authentication === null ? null : json(authentication),
      processingError ?? null,
    ],
  });
  const attachments = content.attachments;
  if (attachments.length === 0) return;
  await client.query({
    name: 'mailroom-insert-received-attachments',
    text: INSERT_ATTACHMENTS,
    values: [
      email.id,
      attachments.map(() => newId('attachment')),
      attachments.map((_, i) => i),
      attachments.map((a) => a.filename),
      attachments.map((a) => a.contentType),
      attachments.map((a) => a.size),
      attachments.map((a) => a.contentId),
      attachments.map((a) => a.disposition),
      attachments.map((a) => a.content),
    ],
  });
}

/** `email.received`, compact (DESIGN §5), once per route; feedback gets none (it becomes bounces and complaints). */
function receivedEvents({ email, content }: ProcessedEmail): NewEvent[] {
  const projectId = email.projectId;
  if (email.kind !== 'route' || projectId === null) return [];
  return [...new Set(email.routeIds)].map((routeId) => ({
    id: receivedEventId(email.id, routeId, email.createdAt),
    projectId,
    subject: { kind: 'received_email', receivedEmailId: email.id },
    type: 'email.received',
    data: {
      email_id: email.id,
      from: content.from?.address || email.mailFrom || null,
      to: email.rcptTo,
      subject: content.subject,
      route_id: routeId,
      created_at: email.createdAt.toISOString(),
    },
  }));
}
