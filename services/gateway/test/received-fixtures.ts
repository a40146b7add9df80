import { newId } from '@mailroom/core';
import type { Client } from 'pg';

export interface ReceivedFixture {
  projectId: string | null;
  routeIds?: string[];
  kind?: 'route' | 'feedback';
  raw?: Buffer;
  /** Parsed columns; absent means the row is not processed yet. */
  parsed?: {
    from: object | null;
    to: object[];
    cc: object[];
    replyTo: object[];
    subject: string | null;
    text: string | null;
    html: string | null;
    textReply: string | null;
    headers: object[];
    messageId: string | null;
    inReplyTo: string | null;
    references: string[];
    date: string | null;
    authentication: object | null;
  };
  attachments?: { filename: string | null; contentType: string; contentId?: string | null; disposition?: string | null; content: Buffer }[];
}

/**
 * Stores a received email the way the MX (the row, before its 250) and the processing (the
 * parsed columns and attachments) do, with plain SQL: those services are not part of the
 * gateway's tests.
 */
export async function insertReceived(db: Client, fixture: ReceivedFixture): Promise<{ id: string; attachmentIds: string[] }> {
  const id = newId('receivedEmail');
  const raw = fixture.raw ?? Buffer.from('From: a@example.com\r\nSubject: hi\r\n\r\nhello\r\n');
  const p = fixture.parsed;
  await db.query(
    `INSERT INTO received_emails (id, project_id, kind, route_ids, mail_from, rcpt_to, remote_address, helo, raw, size, processed_at,
        from_address, "to", cc, reply_to, subject, text, html, text_reply, headers, message_id, in_reply_to, "references", date, authentication, created_at)
     VALUES ($1, $2, $3, $4, 'sender@example.com', ARRAY['support@acme.example'], '203.0.113.7', 'mail.example.com', $5, $6,
        CASE WHEN $7 THEN now() AT TIME ZONE 'UTC' END,
        $8, COALESCE($9, '[]'::jsonb), COALESCE($10, '[]'::jsonb), COALESCE($11, '[]'::jsonb), $12, $13, $14, $15, COALESCE($16, '[]'::jsonb), $17, $18, $19,
        $20::timestamptz AT TIME ZONE 'UTC', $21, now() AT TIME ZONE 'UTC')`,
    [
      id,
      fixture.projectId,
      fixture.kind ?? 'route',
      fixture.routeIds ?? [],
      raw,
      raw.length,
      p !== undefined,
      p?.from ? JSON.stringify(p.from) : null,
      p ? JSON.stringify(p.to) : null,
      p ? JSON.stringify(p.cc) : null,
      p ? JSON.stringify(p.replyTo) : null,
      p?.subject ?? null,
      p?.text ?? null,
      p?.html ?? null,
      p?.textReply ?? null,
      p ? JSON.stringify(p.headers) : null,
      p?.messageId ?? null,
      p?.inReplyTo ?? null,
      p?.references ?? [],
      p?.date ?? null,
      p?.authentication ? JSON.stringify(p.authentication) : null,
    ],
  );
  const attachmentIds: string[] = [];
  for (const [position, a] of (fixture.attachments ?? []).entries()) {
    const attachmentId = newId('attachment');
    attachmentIds.push(attachmentId);
    await db.query(
      `INSERT INTO received_attachments (id, received_email_id, position, filename, content_type, size, content_id, disposition, content)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [attachmentId, id, position, a.filename, a.contentType, a.content.length, a.contentId ?? null, a.disposition ?? 'attachment', a.content],
    );
  }
  return { id, attachmentIds };
}
