// What a received report does to the one recipient it is about (DESIGN §7 "Feedback"): pure
// functions from a read report (../feedback/read-report) to the outcome recordOutcomes applies.
import { bounceSuppressesAddress, type SmtpReplyData } from '@mailroom/core';
import type { FeedbackOutcome } from '@mailroom/db';
import { classifyBounce, type DsnRecipient, type FeedbackType, type Report } from '../feedback/read-report';

/** Feedback types that are complaints; `not-spam` and `auth-failure` are not (RFC 6650, 6591). */
const COMPLAINT_TYPES: ReadonlySet<FeedbackType> = new Set(['abuse', 'fraud', 'other', 'virus']);

const normalise = (address: string | undefined) =>
  (address ?? '')
    .trim()
    .replace(/^<(.*)>$/, '$1')
    .trim()
    .toLowerCase();

/**
 * The block of a DSN about `address`: the one whose final or original recipient is that
 * address, else the only failed or delayed block, else the first. Undefined for a report
 * without blocks.
 */
export function chooseDsnRecipient(recipients: readonly DsnRecipient[], address: string): DsnRecipient | undefined {
  const wanted = normalise(address);
  const named = recipients.find((r) => normalise(r.finalRecipient) === wanted || normalise(r.originalRecipient) === wanted);
  if (named) return named;
  const unsuccessful = recipients.filter((r) => r.action === 'failed' || r.action === 'delayed');
  return unsuccessful.length === 1 ? unsuccessful[0] : recipients[0];
}

/**
 * One DSN block as an outcome: failed or 5.x.x → bounced (type per classifyBounce; suppressing
 * only where the sender's rule says, see bounceSuppressesAddress), delayed → deferred,
 * delivered/relayed/expanded → null.
 */
export function dsnOutcome(block: DsnRecipient): FeedbackOutcome | null {
  const { event, bounceType } = classifyBounce(block.status, block.action);
  if (event === null) return null;
  const reply = splitReply(block.diagnostic);
  const smtp: SmtpReplyData = {
    code: reply.code,
    enhanced_code: block.status,
    message: reply.text ?? `Action: ${block.action}${block.status ? `, Status: ${block.status}` : ''}`,
  };
  if (event === 'email.delivery_delayed') return { kind: 'deferred', smtp, error: smtp.message };
  return { kind: 'bounced', smtp, bounceType: bounceType ?? 'soft', suppress: bounceSuppressesAddress(block.status) };
}

/** A report nobody can read: a soft bounce with no code, its text kept (never a guessed hard bounce). */
export function unreadableOutcome(text: string): FeedbackOutcome {
  return { kind: 'bounced', smtp: { code: null, enhanced_code: null, message: text }, bounceType: 'soft', suppress: false };
}

/**
 * What a report means for the recipient it is about (already matched by the caller), or null
 * when it means nothing: a delivered/relayed DSN, an automatic reply, an ARF report that is
 * not a complaint.
 */
export function reportOutcome(report: Report, recipientAddress: string): FeedbackOutcome | null {
  switch (report.kind) {
    case 'dsn': {
      const block = chooseDsnRecipient(report.recipients, recipientAddress);
      return block ? dsnOutcome(block) : unreadableOutcome('The delivery status notification names no recipient.');
    }
    case 'arf':
      if (!COMPLAINT_TYPES.has(report.feedbackType)) return null;
      return { kind: 'complained', detail: `${report.feedbackType} report${report.userAgent ? ` (${report.userAgent})` : ''}` };
    case 'auto-reply':
      return null;
    case 'unknown':
      return unreadableOutcome(report.text);
  }
}

/**
 * A diagnostic as the sender keeps SMTP replies: the basic code it starts with (`550 5.1.1 …`),
 * or null, and the text after the codes (the whole diagnostic when nothing else is left).
 */
function splitReply(diagnostic: string | null): { code: number | null; text: string | null } {
  if (diagnostic === null) return { code: null, text: null };
  const match = /^\s*([245]\d\d)(?:[\s-]+|$)(?:[245]\.\d{1,3}\.\d{1,3}(?:\s+|$))?/.exec(diagnostic);
  if (!match) return { code: null, text: diagnostic };
  const text = diagnostic.slice(match[0].length).trim();
  return { code: Number(match[1]), text: text || diagnostic };
}
