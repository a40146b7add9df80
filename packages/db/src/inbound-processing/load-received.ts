import type { Queryable } from '../pool';

/** A received email waiting to be parsed: its raw bytes and the envelope the MX stored. */
export interface PendingReceivedEmail {
  id: string;
  projectId: string | null;
  kind: 'route' | 'feedback';
  routeIds: string[];
  /** For feedback at a VERP address: the email_recipients id (rcpt_…) the address names, MAC verified at RCPT. */
  feedbackRecipientId: string | null;
  mailFrom: string;
  rcptTo: string[];
  remoteAddress: string | null;
  helo: string | null;
  raw: Buffer;
  processingAttempts: number;
  createdAt: Date;
}

interface PendingRow {
  id: string;
  project_id: string | null;
  kind: 'route' | 'feedback';
  route_ids: string[] | null;
  feedback_recipient_id: string | null;
  mail_from: string;
  rcpt_to: string[] | null;
  remote_address: string | null;
  helo: string | null;
  raw: Buffer;
  processing_attempts: number;
  created_at: Date;
}

/**
 * The received emails among `ids` that are not processed yet, without locking them: parsing
 * and DNS lookups happen outside any transaction, and `storeProcessedEmail` checks again under
 * a row lock.
 */
export async function loadPendingReceivedEmails(db: Queryable, ids: readonly string[]): Promise<PendingReceivedEmail[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<PendingRow>({
    name: 'mailroom-load-pending-received',
    text: `SELECT id, project_id, kind, route_ids, feedback_recipient_id, mail_from, rcpt_to, remote_address, helo, raw, processing_attempts, created_at
             FROM received_emails
            WHERE id = ANY($1::text[]) AND processed_at IS NULL
            ORDER BY id`,
    values: [ids],
  });
  return rows.map((r) => ({
    id: r.id,
    projectId: r.project_id,
    kind: r.kind,
    routeIds: r.route_ids ?? [],
    feedbackRecipientId: r.feedback_recipient_id,
    mailFrom: r.mail_from,
    rcptTo: r.rcpt_to ?? [],
    remoteAddress: r.remote_address,
    helo: r.helo,
    raw: r.raw,
    processingAttempts: r.processing_attempts,
    createdAt: r.created_at,
  }));
}

/**
 * Ids of received emails still unprocessed that arrived more than `olderThanSeconds` ago
 * (their job was lost, or the process died while working on them), in id order, after
 * `afterId` for paging. Ages are measured by the database's clock, which wrote `created_at`.
 */
export async function findUnprocessedReceivedEmails(
  db: Queryable,
  options: { olderThanSeconds: number; afterId?: string; limit: number },
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>({
    name: 'mailroom-find-unprocessed-received',
    text: `SELECT id FROM received_emails
            WHERE processed_at IS NULL AND created_at < now() - make_interval(secs => $1) AND id > $2
            ORDER BY id LIMIT $3`,
    values: [options.olderThanSeconds, options.afterId ?? '', options.limit],
  });
  return rows.map((r) => r.id);
}
