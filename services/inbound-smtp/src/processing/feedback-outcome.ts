// What a received report does to the one recipient it is about (DESIGN §7 "Feedback"): pure
// functions from a read report (../feedback/read-report) to the outcome recordOutcomes applies.
import { domainToASCII } from 'node:url';
import { bounceSuppressesAddress, normalizeAddress, type SmtpReplyData } from '@mailroom/core';
import type { FeedbackOutcome } from '@mailroom/db';
import { classifyBounce, type DsnRecipient, type FeedbackType, type Report } from '../feedback/read-report';
import { findBasicCode, findEnhancedCode, saysAnsweredData } from '../feedback/status-codes';

/** Feedback types that are complaints; `not-spam` and `auth-failure` are not (RFC 6650, 6591). */
const COMPLAINT_TYPES: ReadonlySet<FeedbackType> = new Set(['abuse', 'fraud', 'other', 'virus']);

/**
 * An address as the mailbox it names, to compare two spellings of one: lower-cased, the local
 * part in Unicode NFC and the domain in A-labels (normalizeAddress, as routes compare). A report
 * names an internationalized recipient as it pleases (RFC 6533's `utf-8; zoë@exämple.org`, or
 * `rfc822; …@xn--exmple-cua.org`), and the sent recipient is stored in A-labels. What is no
 * routable address is only lower-cased.
 */
export function mailboxKey(address: string | undefined): string {
  const bare = (address ?? '').trim().replace(/^<(.*)>$/, '$1').trim();
  return normalizeAddress(bare) ?? bare.toLowerCase();
}

/**
 * The block of a DSN about `address`: the one whose final or original recipient is that
 * address (the same mailbox, see mailboxKey), else the only failed or delayed block. When none
 * names it and several failed or delayed blocks name others, taking one would be a guess (GMX
 * lists a user-unknown and a mailbox-full recipient in one report): they count only when all
 * agree (the same action and status); otherwise the answer is a block without a status, which
 * bounces soft (or defers, when all were delayed) and never suppresses. With no failed or
 * delayed block, the first. Undefined for a report without blocks.
 */
export function chooseDsnRecipient(recipients: readonly DsnRecipient[], address: string): DsnRecipient | undefined {
  const wanted = mailboxKey(address);
  const named = recipients.find((r) => mailboxKey(r.finalRecipient) === wanted || mailboxKey(r.originalRecipient) === wanted);
  if (named) return named;
  const unsuccessful = recipients.filter((r) => r.action === 'failed' || r.action === 'delayed');
  const [first] = unsuccessful;
  if (!first) return recipients[0];
  if (unsuccessful.every((r) => r.action === first.action && r.status === first.status)) return first;
  return {
    action: unsuccessful.every((r) => r.action === 'delayed') ? 'delayed' : 'failed',
    status: null,
    diagnostic: `The report names ${unsuccessful.length} other recipients with different results: ${unsuccessful
      .map((r) => `${r.finalRecipient ?? r.originalRecipient ?? '(no address)'}: ${r.status ?? r.action}`)
      .join('; ')
      .slice(0, 1000)}`,
  };
}

// A reply the far end gave to our MAIL FROM is about our sender, whatever its code, as the sender
// judges its own SMTP replies: Exim writes "after MAIL FROM:<…>", Postfix "(in reply to MAIL FROM
// command)". `553 5.1.0 … does not exist` there is our domain, not the recipient.
const REPLY_TO_MAIL_FROM = /\bafter MAIL FROM\b|\bin reply to MAIL FROM command\b/i;
// A reply that quotes our return path (`<bounces+rcpt_…-mac@…>`, see Verp in @mailroom/core) is
// about that address, our sender, even where the report leaves out which command it answered
// (Cox's "<bounces+…> sender rejected", a sendmail "553 5.1.0 <bounces+…>... Address rejected").
const QUOTES_OUR_RETURN_PATH = /<bounces\+[\w-]{1,80}@/i;
// A domain said not to exist, named alone (`553 5.1.0 <acme.test> does not exist`): sendmail's
// answer to a MAIL FROM whose domain it cannot resolve, which a report may quote without saying
// it answered MAIL FROM. About the recipient only when it is the recipient's domain.
const DOMAIN_DOES_NOT_EXIST = /<([a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){1,8})>:? does ?n[o']t exist/i;

/** True when the diagnostic says a domain that is not the recipient's does not exist. */
function namesAnotherDomain(block: DsnRecipient, diagnostic: string): boolean {
  const named = DOMAIN_DOES_NOT_EXIST.exec(diagnostic)?.[1];
  const ours = [block.finalRecipient, block.originalRecipient].flatMap((a) => (a?.includes('@') ? [domainToASCII(a.slice(a.lastIndexOf('@') + 1))] : []));
  return named !== undefined && ours.length > 0 && !ours.includes(domainToASCII(named));
}

/**
 * One DSN block as an outcome: failed or 5.x.x → bounced (type per classifyBounce; suppressing
 * only where the sender's rule says, see bounceSuppressesAddress, never for a reply to our
 * MAIL FROM, nor for a reply to DATA whose 5.1.x comes from its words alone), delayed →
 * deferred, delivered/relayed/expanded → null.
 */
export function dsnOutcome(block: DsnRecipient): FeedbackOutcome | null {
  const { event, bounceType } = classifyBounce(block.status, block.action);
  if (event === null) return null;
  const reply = splitReply(block.diagnostic, block.status);
  const smtp: SmtpReplyData = {
    code: reply.code,
    enhanced_code: block.status,
    message: reply.text ?? `Action: ${block.action}${block.status ? `, Status: ${block.status}` : ''}`,
  };
  if (event === 'email.delivery_delayed') return { kind: 'deferred', smtp, error: smtp.message };
  const diagnostic = block.diagnostic ?? '';
  const aboutOurSender = REPLY_TO_MAIL_FROM.test(diagnostic) || QUOTES_OUR_RETURN_PATH.test(diagnostic) || namesAnotherDomain(block, diagnostic);
  const phase = { answeredData: block.answeredData === true || saysAnsweredData(diagnostic), codeFromWords: findEnhancedCode(diagnostic) === null };
  return { kind: 'bounced', smtp, bounceType: bounceType ?? 'soft', suppress: bounceSuppressesAddress(block.status, diagnostic, phase) && !aboutOurSender };
}

/** A report nobody can read: a soft bounce with no code, its text kept (never a guessed hard bounce). */
export function unreadableOutcome(text: string): FeedbackOutcome {
  return { kind: 'bounced', smtp: { code: null, enhanced_code: null, message: text }, bounceType: 'soft', suppress: false };
}

/**
 * What a report means for the recipient it is about (already matched by the caller), or null
 * when it means nothing: a delivered/relayed DSN, an automatic reply, a person's message, an
 * ARF report that is not a complaint.
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
    case 'personal':
      return null;
    case 'unknown':
      return unreadableOutcome(report.text);
  }
}

/** An enhanced status code (RFC 3463), as a pattern source. */
const ENHANCED = '[245]\\.\\d{1,3}\\.\\d{1,3}';
// A reply code and its enhanced code quoted inside a diagnostic ("host mx said: 550 5.1.1 …",
// "Remote host said: 550-5.1.1 …", Exim's "RCPT TO:<a@x>: 550 5.1.1 …"), not at its start.
const QUOTED_REPLY = new RegExp(`(?<![\\w.])([245]\\d\\d)[ -](${ENHANCED})(?![\\w.])`);

/**
 * A diagnostic as the sender keeps SMTP replies (parseSmtpReply in the sender): the basic reply
 * code, or null, and the text without the codes. The code is the one the diagnostic starts
 * with, else the first reply quoted inside it (`host … said: 550 5.1.1 …`, as Exim, qmail and
 * Postfix's text write), else the first basic code quoted where replies are (status-codes.ts);
 * a quoted code counts only when its class agrees with the status. The codes a multi-line reply
 * repeats on every line (`550-5.1.1 …`) are dropped from the text, as the sender drops them
 * (a quoted reply keeps its first pair, as `550 5.1.1`, after the text that introduces it);
 * the whole diagnostic is the text when nothing else is left.
 */
export function splitReply(diagnostic: string | null, status: string | null = null): { code: number | null; text: string | null } {
  if (diagnostic === null) return { code: null, text: null };
  const lead = new RegExp(`^\\s*([245]\\d\\d)(?:[\\s-]+|$)(?:${ENHANCED}(?:\\s+|$))?`).exec(diagnostic);
  if (lead) {
    const code = Number(lead[1]);
    const text = withoutContinuations(diagnostic.slice(lead[0].length), code).trim();
    return { code, text: text || diagnostic };
  }
  const agrees = (code: number) => status === null || status[0] === String(code)[0];
  const quoted = QUOTED_REPLY.exec(diagnostic);
  if (quoted && agrees(Number(quoted[1]))) {
    const code = Number(quoted[1]);
    const rest = withoutContinuations(diagnostic.slice(quoted.index + quoted[0].length), code).trim();
    return { code, text: `${diagnostic.slice(0, quoted.index)}${code} ${quoted[2]} ${rest}`.trim() };
  }
  const basic = findBasicCode(diagnostic);
  return { code: basic !== null && agrees(basic) ? basic : null, text: diagnostic };
}

/** Drops the `550-5.1.1 ` / `550 5.1.1 ` / `550-` line prefixes of a multi-line reply joined on one line. */
function withoutContinuations(text: string, code: number): string {
  return text.replace(new RegExp(`(^|\\s)${code}(?:-(?:${ENHANCED}(?=\\s|$))?|\\s+${ENHANCED}(?=\\s|$))[ \\t]*`, 'g'), '$1');
}
