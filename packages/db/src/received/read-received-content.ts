import type { Queryable } from '../pool';

/** The message exactly as received, or null when it is not the project's. */
export async function readReceivedRaw(db: Queryable, projectId: string, id: string): Promise<Buffer | null> {
  const { rows } = await db.query<{ raw: Buffer }>({
    text: 'SELECT raw FROM received_emails WHERE id = $1 AND project_id = $2',
    values: [id, projectId],
  });
  return rows[0]?.raw ?? null;
}

export interface ReceivedAttachmentDownload {
  id: string;
  filename: string | null;
  contentType: string;
  content: Buffer;
}

/** An attachment of one of the project's received emails, with its bytes; null when not exactly that. */
export async function readReceivedAttachment(
  db: Queryable,
  projectId: string,
  receivedEmailId: string,
  attachmentId: string,
): Promise<ReceivedAttachmentDownload | null> {
  const { rows } = await db.query<ReceivedAttachmentDownload>({
    text: `SELECT a.id, a.filename, a.content_type AS "contentType", a.content
             FROM received_attachments a
             JOIN received_emails r ON r.id = a.received_email_id
            WHERE a.id = $1 AND a.received_email_id = $2 AND r.project_id = $3`,
    values: [attachmentId, receivedEmailId, projectId],
  });
  return rows[0] ?? null;
}
