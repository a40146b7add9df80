import type { Queryable } from '../pool';

/** The metadata of a received attachment (its bytes are read on their own, by `readReceivedAttachment`). */
export interface ReceivedAttachmentInfo {
  id: string;
  filename: string | null;
  contentType: string;
  size: number;
  contentId: string | null;
  disposition: string | null;
}

/**
 * A received email as stored, without its raw bytes. The parsed fields are empty (null, [])
 * until `processedAt` is set; the JSON columns are as the processing wrote them.
 */
export interface ReceivedEmailRow {
  id: string;
  projectId: string;
  kind: 'route' | 'feedback';
  routeIds: string[];
  mailFrom: string;
  rcptTo: string[];
  remoteAddress: string | null;
  helo: string | null;
  size: number;
  processedAt: Date | null;
  from: unknown;
  to: unknown;
  cc: unknown;
  replyTo: unknown;
  subject: string | null;
  messageId: string | null;
  inReplyTo: string | null;
  references: string[] | null;
  date: Date | null;
  authentication: unknown;
  createdAt: Date;
  attachments: ReceivedAttachmentInfo[];
}

/** With the bodies and headers, which lists leave out. */
export interface ReceivedEmailDetail extends ReceivedEmailRow {
  text: string | null;
  html: string | null;
  textReply: string | null;
  headers: unknown;
}

// Timestamps are UTC without a zone, as Prisma writes them; read them as such whatever the session's zone.
const SUMMARY_COLUMNS = `r.id, r.project_id AS "projectId", r.kind, r.route_ids AS "routeIds", r.mail_from AS "mailFrom",
  r.rcpt_to AS "rcptTo", r.remote_address AS "remoteAddress", r.helo, r.size,
  r.processed_at AT TIME ZONE 'UTC' AS "processedAt", r.from_address AS "from", r."to", r.cc, r.reply_to AS "replyTo",
  r.subject, r.message_id AS "messageId", r.in_reply_to AS "inReplyTo", r."references", r.date AT TIME ZONE 'UTC' AS "date",
  r.authentication, r.created_at AT TIME ZONE 'UTC' AS "createdAt",
  COALESCE((SELECT json_agg(json_build_object('id', a.id, 'filename', a.filename, 'contentType', a.content_type, 'size', a.size,
                                              'contentId', a.content_id, 'disposition', a.disposition) ORDER BY a.position)
              FROM received_attachments a WHERE a.received_email_id = r.id), '[]'::json) AS attachments`;
const DETAIL_COLUMNS = `${SUMMARY_COLUMNS}, r.text, r.html, r.text_reply AS "textReply", r.headers`;

/** One received email of the project, with its bodies and headers; null when it is not the project's. */
export async function findReceivedEmail(db: Queryable, projectId: string, id: string): Promise<ReceivedEmailDetail | null> {
  const { rows } = await db.query<ReceivedEmailDetail>({
    text: `SELECT ${DETAIL_COLUMNS} FROM received_emails r WHERE r.id = $1 AND r.project_id = $2`,
    values: [id, projectId],
  });
  return rows[0] ?? null;
}

export interface ReceivedEmailQuery {
  projectId: string;
  /** Only emails that arrived through this route (any of their `route_ids`). */
  routeId?: string | undefined;
  /** Only ids below this one (the last id of the previous page). */
  before?: string | undefined;
  limit: number;
}

/** One page of the project's received emails, newest first, without bodies and headers. */
export async function listReceivedEmails(db: Queryable, query: ReceivedEmailQuery): Promise<ReceivedEmailRow[]> {
  const { rows } = await db.query<ReceivedEmailRow>({
    text: `SELECT ${SUMMARY_COLUMNS} FROM received_emails r
            WHERE r.project_id = $1
              AND ($2::text IS NULL OR r.route_ids @> ARRAY[$2::text])
              AND ($3::text IS NULL OR r.id < $3)
            ORDER BY r.id DESC
            LIMIT $4`,
    values: [query.projectId, query.routeId ?? null, query.before ?? null, query.limit],
  });
  return rows;
}
