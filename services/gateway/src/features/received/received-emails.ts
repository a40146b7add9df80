import { isId, notFound } from '@mailroom/core';
import {
  findReceivedEmail,
  listReceivedEmails,
  readReceivedAttachment,
  readReceivedRaw,
  type Queryable,
  type ReceivedAttachmentDownload,
  type ReceivedEmailDetail,
  type ReceivedEmailRow,
} from '@mailroom/db';
import type { ListQuery } from '../../http/pagination';

/** One received email of the project; another project's (or one with no project) is 404. */
export async function getReceivedEmail(db: Queryable, projectId: string, id: string): Promise<ReceivedEmailDetail> {
  const row = isId('receivedEmail', id) ? await findReceivedEmail(db, projectId, id) : null;
  if (!row) throw notFound('received email');
  return row;
}

/** `limit + 1` received emails of the project after the cursor, newest first, optionally of one route. */
export function listProjectReceivedEmails(db: Queryable, projectId: string, query: ListQuery & { routeId?: string | undefined }): Promise<ReceivedEmailRow[]> {
  return listReceivedEmails(db, { projectId, routeId: query.routeId, before: query.after, limit: query.limit + 1 });
}

/** The raw message of one of the project's received emails. */
export async function getReceivedRaw(db: Queryable, projectId: string, id: string): Promise<Buffer> {
  const raw = isId('receivedEmail', id) ? await readReceivedRaw(db, projectId, id) : null;
  if (!raw) throw notFound('received email');
  return raw;
}

/** An attachment of that very received email of the project; any other is 404. */
export async function getReceivedAttachment(db: Queryable, projectId: string, id: string, attachmentId: string): Promise<ReceivedAttachmentDownload> {
  const found = isId('receivedEmail', id) ? await readReceivedAttachment(db, projectId, id, attachmentId) : null;
  if (!found) throw notFound('attachment');
  return found;
}
