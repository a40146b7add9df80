import { createHash } from 'node:crypto';
import type { Logger, Verp } from '@mailroom/core';
import {
  assignReceivedEmailProject,
  findSentEmailByMessageId,
  findSentEmailByRecipient,
  type PendingReceivedEmail,
  type Pool,
  recordOutcomes,
  reportLink,
  type SentEmail,
} from '@mailroom/db';
import { type Report, readReport } from '../feedback/read-report';
import { mailboxKey, reportOutcome } from './feedback-outcome';

export interface FeedbackOptions {
  /** PUBLIC_API_URL: events link to `<it>/emails/received/<id>/raw`. */
  publicApiUrl: string;
  /** Reads VERP return paths found inside ARF originals; without it only their Message-ID matches. */
  verp?: Verp;
  /** Told the kind of each outcome a report recorded (metrics). */
  onOutcome?: (outcome: string) => void;
}

export interface FeedbackDeps extends FeedbackOptions {
  pool: Pool;
  logger: Logger;
}

type FeedbackEmail = Pick<PendingReceivedEmail, 'id' | 'projectId' | 'feedbackRecipientId' | 'raw' | 'createdAt'> & {
  /** The report's own Message-ID, when it has one. */
  messageId: string | null;
};

/**
 * What makes two reports "the same report": its Message-ID, so a report a remote server
 * delivers twice (two stored rows) is applied once; without one, its bytes (the MX stores them
 * exactly as sent, so a report sent again is the same bytes).
 */
export function reportSourceKey(email: Pick<FeedbackEmail, 'messageId' | 'raw'>): string {
  return email.messageId ? `message-id:${email.messageId.toLowerCase()}` : `sha256:${createHash('sha256').update(email.raw).digest('hex')}`;
}

/** The sent email and recipient a report is about. */
interface Target {
  sent: SentEmail;
  recipient: { id: string; address: string };
  /** How it was found, for the log. */
  by: 'verp-address' | 'verp-in-original' | 'message-id';
}

/**
 * Turns one received feedback message (a row of kind `feedback`) into an outcome on the sent
 * email it is about (DESIGN §7 "Feedback"), through the one writer of outcomes with the
 * report's Message-ID (or stored id) as the source key, so applying it again — or the same
 * report delivered twice — records nothing more. Call it
 * before the row is marked processed: a crash in between re-applies it, which changes nothing.
 *
 * - At a VERP address the report is about exactly the recipient the address names, whatever
 *   its text says.
 * - At `fbl@` only ARF reports are read, matched through the original they carry: the VERP
 *   return path inside it, else its Message-ID; the recipient by Original-Rcpt-To, the
 *   original's To, or the only one. Once matched, the row gets that email's project.
 * - Unmatched reports are stored (by the caller) without an outcome, and logged.
 *
 * Returns the number of events appended (notify the events queue once committed).
 */
export async function applyFeedback(deps: FeedbackDeps, email: FeedbackEmail): Promise<number> {
  const report = await readReport(email.raw);
  const target = await findTarget(deps, email, report);
  const about = { receivedEmailId: email.id, report: report.kind, format: 'format' in report ? report.format : undefined };
  if (!target) {
    deps.logger.info(about, 'feedback report matched no sent email; stored without an outcome');
    return 0;
  }
  const outcome = reportOutcome(report, target.recipient.address);
  const appended = outcome
    ? await recordOutcomes(deps.pool, [
        {
          email: target.sent.email,
          recipient: target.recipient,
          outcome,
          at: email.createdAt,
          sourceKey: reportSourceKey(email),
          report: reportLink(email.id, deps.publicApiUrl),
        },
      ])
    : 0;
  if (outcome && appended > 0) deps.onOutcome?.(outcome.kind);
  if (email.projectId === null) await assignReceivedEmailProject(deps.pool, email.id, target.sent.email.projectId);
  deps.logger.info(
    { ...about, emailId: target.sent.email.id, recipientId: target.recipient.id, matchedBy: target.by, outcome: outcome?.kind ?? null, appended },
    'feedback report applied',
  );
  return appended;
}

async function findTarget(deps: FeedbackDeps, email: FeedbackEmail, report: Report): Promise<Target | null> {
  if (email.feedbackRecipientId !== null) return byRecipientId(deps, email.feedbackRecipientId, 'verp-address');
  // fbl@: complaints only; anything else there names no recipient we can trust.
  if (report.kind !== 'arf') return null;
  for (const returnPath of [report.original.returnPath, report.originalMailFrom]) {
    const recipientId = returnPath ? deps.verp?.parseAny(returnPath) : null;
    const target = recipientId ? await byRecipientId(deps, recipientId, 'verp-in-original') : null;
    if (target) return target;
  }
  const sent = report.original.messageId ? await findSentEmailByMessageId(deps.pool, report.original.messageId) : null;
  if (!sent) return null;
  // A Message-ID is no proof the mail reached anyone (an email's id is in it): only a recipient
  // it was sent to can complain, never one still scheduled, canceled or suppressed before sending.
  const recipient = pickRecipient(
    sent.recipients.filter((r) => r.attempts > 0),
    report.originalRcptTo,
    report.original.to,
  );
  return recipient ? { sent, recipient, by: 'message-id' } : null;
}

async function byRecipientId(deps: FeedbackDeps, recipientId: string, by: Target['by']): Promise<Target | null> {
  const sent = await findSentEmailByRecipient(deps.pool, recipientId);
  const recipient = sent?.recipients.find((r) => r.id === recipientId);
  return sent && recipient ? { sent, recipient, by } : null;
}

const ADDRESS = /[^\s<>,;:"'()[\]]+@[^\s<>,;:"'()[\]]+/g;

/**
 * The recipient of a complaint matched by Message-ID: the one Original-Rcpt-To names, else the
 * one the original's To names (when it names exactly one of them), else the only recipient.
 * Addresses compare as mailboxes (mailboxKey): a U-label domain names its A-label recipient.
 */
export function pickRecipient(
  recipients: readonly { id: string; address: string }[],
  originalRcptTo: string | undefined,
  originalTo: string | undefined,
): { id: string; address: string } | null {
  for (const text of [originalRcptTo, originalTo]) {
    const named = new Set((text?.match(ADDRESS) ?? []).map(mailboxKey));
    const matches = recipients.filter((r) => named.has(mailboxKey(r.address)));
    if (matches.length === 1) return matches[0] ?? null;
  }
  return recipients.length === 1 ? (recipients[0] ?? null) : null;
}
