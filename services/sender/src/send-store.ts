import { ATTEMPTABLE_STATUSES, TEST_ADDRESS_DOMAIN } from '@mailroom/core';
import type { Pool } from '@mailroom/db';

/** An email as the sender needs it: enough to build the message and to describe events. */
export interface OutgoingEmail {
  id: string;
  projectId: string;
  from: string;
  /** The From address alone, as given. */
  fromAddress: string;
  to: string[];
  cc: string[];
  replyTo: string[];
  subject: string;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  tags: { name: string; value: string }[];
  messageId: string;
  /** When the send was accepted: the message's Date (RFC 5322 §3.6.1), the same on every attempt. Now when absent. */
  acceptedAt?: Date;
  /** Effective open and click tracking (the send's, else the project's defaults at send time). */
  trackOpens: boolean;
  trackClicks: boolean;
  hasAttachments: boolean;
  /** Recipients due now, not suppressed. */
  due: DueRecipient[];
  /** Recipients due now whose address the project suppresses. */
  suppressed: DueRecipient[];
}

/** One attempt's recipient as claimed, for `recordedSince`. */
export interface RecordedAttempt {
  id: string;
  attempts: number;
  suppressed: boolean;
}

export interface DueRecipient {
  id: string;
  address: string;
  attempts: number;
  /** When its first attempt began; null before it. */
  firstAttemptAt: Date | null;
}

/** A due recipient as json_build_object gives it: timestamps as text. */
type DueRow = Omit<DueRecipient, 'firstAttemptAt'> & { firstAttemptAt: string | null; suppressed: boolean };

export interface OutgoingAttachment {
  filename: string;
  contentType: string | null;
  contentId: string | null;
  content: Buffer;
}

/**
 * The sender's claims on emails, held in PostgreSQL. A lease lasts LEASE_SECONDS and is renewed
 * while the worker works; a claim is taken only on a due email whose lease is free or expired,
 * so two workers never work on one email at once, and a dead worker's emails are picked up again
 * once its lease runs out. Every call handles many emails in one statement.
 */
export class SendStore {
  constructor(private readonly pool: Pool, private readonly owner: string, private readonly leaseSeconds: number) {}

  /** Claims those of `emailIds` that are due and unclaimed; scheduled ones become queued. Returns the claimed ids. */
  async claim(emailIds: readonly string[]): Promise<string[]> {
    const { rows } = await this.pool.query<{ id: string }>({
      name: 'mailroom-claim-emails',
      text: `WITH claimed AS (
               UPDATE emails
                  SET lease_owner = $2, lease_expires_at = now() + make_interval(secs => $3),
                      status = CASE WHEN status = 'scheduled' THEN 'queued'::"DeliveryStatus" ELSE status END, updated_at = now()
                WHERE id = ANY($1::text[]) AND next_attempt_at IS NOT NULL AND next_attempt_at <= now() + interval '1 second'
                  AND (lease_expires_at IS NULL OR lease_expires_at < now())
               RETURNING id
             ), recipients AS (
               UPDATE email_recipients SET status = 'queued', updated_at = now()
                WHERE email_id IN (SELECT id FROM claimed) AND status = 'scheduled'
             )
             SELECT id FROM claimed`,
      values: [emailIds, this.owner, this.leaseSeconds],
    });
    return rows.map((r) => r.id);
  }

  async renew(emailIds: readonly string[]): Promise<void> {
    await this.pool.query({
      name: 'mailroom-renew-leases',
      text: 'UPDATE emails SET lease_expires_at = now() + make_interval(secs => $3) WHERE id = ANY($1::text[]) AND lease_owner = $2',
      values: [emailIds, this.owner, this.leaseSeconds],
    });
  }

  /**
   * The claimed emails with their due recipients, split by suppression (test addresses never are). Timestamp columns hold
   * UTC without a zone, as Prisma writes them; AT TIME ZONE 'UTC' reads them as such.
   */
  async load(emailIds: readonly string[]): Promise<OutgoingEmail[]> {
    const { rows } = await this.pool.query<{ email: Omit<OutgoingEmail, 'due' | 'suppressed' | 'acceptedAt'> & { acceptedAt: string }; due: DueRow[] }>({
      name: 'mailroom-load-outgoing',
      text: `SELECT json_build_object(
                      'id', e.id, 'projectId', e.project_id, 'from', e.from_header, 'fromAddress', e.from_address, 'to', e."to", 'cc', e.cc, 'replyTo', e.reply_to,
                      'subject', e.subject, 'html', e.html, 'text', e.text, 'headers', e.headers, 'tags', e.tags,
                      'messageId', e.message_id, 'acceptedAt', e.created_at AT TIME ZONE 'UTC', 'trackOpens', e.track_opens, 'trackClicks', e.track_clicks,
                      'hasAttachments', EXISTS (SELECT 1 FROM email_attachments a WHERE a.email_id = e.id)) AS email,
                    coalesce((SELECT json_agg(json_build_object(
                                'id', r.id, 'address', r.address, 'attempts', r.attempts, 'firstAttemptAt', r.first_attempt_at AT TIME ZONE 'UTC',
                                'suppressed', lower(r.address) NOT LIKE '%@' || $3
                                              AND EXISTS (SELECT 1 FROM suppressions s WHERE s.project_id = e.project_id AND s.address = lower(r.address)))
                              ORDER BY r.id)
                                FROM email_recipients r
                               WHERE r.email_id = e.id AND r.status = ANY($2::"DeliveryStatus"[])
                                 AND (r.next_attempt_at IS NULL OR r.next_attempt_at <= now() + interval '1 second')), '[]') AS due
               FROM emails e WHERE e.id = ANY($1::text[])`,
      values: [emailIds, ATTEMPTABLE_STATUSES, TEST_ADDRESS_DOMAIN],
    });
    const recipient = ({ suppressed: _, firstAttemptAt, ...r }: DueRow): DueRecipient => ({ ...r, firstAttemptAt: firstAttemptAt === null ? null : new Date(firstAttemptAt) });
    return rows.map(({ email, due }) => ({
      ...email,
      acceptedAt: new Date(email.acceptedAt),
      due: due.filter((r) => !r.suppressed).map(recipient),
      suppressed: due.filter((r) => r.suppressed).map(recipient),
    }));
  }

  async attachments(emailId: string): Promise<OutgoingAttachment[]> {
    const { rows } = await this.pool.query<{ filename: string; content_type: string | null; content_id: string | null; content: Buffer }>({
      text: 'SELECT filename, content_type, content_id, content FROM email_attachments WHERE email_id = $1 ORDER BY position',
      values: [emailId],
    });
    return rows.map((r) => ({ filename: r.filename, contentType: r.content_type, contentId: r.content_id, content: r.content }));
  }

  /**
   * Which of these attempts a commit already recorded (its reply lost to an outage): the
   * recipient's attempt count passed the one loaded with the claim, or, for a suppression
   * (which is no attempt), its status is `suppressed`. Only the lease holder records them.
   */
  async recordedSince(attempts: readonly RecordedAttempt[]): Promise<Set<string>> {
    const { rows } = await this.pool.query<{ id: string; attempts: number; status: string }>({
      text: 'SELECT id, attempts, status FROM email_recipients WHERE id = ANY($1::text[])',
      values: [attempts.map((a) => a.id)],
    });
    const loaded = new Map(attempts.map((a) => [a.id, a]));
    const recorded = rows.filter((row) => {
      const attempt = loaded.get(row.id);
      return attempt !== undefined && (attempt.suppressed ? row.status === 'suppressed' : row.attempts > attempt.attempts);
    });
    return new Set(recorded.map((row) => row.id));
  }

  /**
   * Gives the emails back, each due again at the earliest next attempt of its unfinished
   * recipients (a recipient not yet attempted counts as due now), or never when none is left.
   */
  async release(emailIds: readonly string[]): Promise<{ emailId: string; dueAt: Date }[]> {
    const { rows } = await this.pool.query<{ id: string; next_attempt_at: Date | null }>({
      name: 'mailroom-release-emails',
      text: `UPDATE emails e
                SET lease_owner = NULL, lease_expires_at = NULL, updated_at = now(),
                    next_attempt_at = (SELECT min(coalesce(r.next_attempt_at, now())) FROM email_recipients r
                                        WHERE r.email_id = e.id AND r.status = ANY($3::"DeliveryStatus"[]))
              WHERE e.id = ANY($1::text[]) AND e.lease_owner = $2
             RETURNING e.id, e.next_attempt_at`,
      values: [emailIds, this.owner, ATTEMPTABLE_STATUSES],
    });
    return rows.flatMap((r) => (r.next_attempt_at ? [{ emailId: r.id, dueAt: r.next_attempt_at }] : []));
  }
}
