import { enhancedFromBasic, permanentStatusFromText } from '@mailroom/core';

// Finding a status code in free text. The rules, in order:
// 1. An enhanced status code (RFC 3463, `5.1.1`, also `#5.1.1` and `(#5.1.1)`) in the text is
//    taken as written: the one of a quoted SMTP reply (`550 5.2.2`, `550-'5.2.2`) before any
//    other (Amazon SES puts its own category first: `5.1.0 - Unknown address error 550-'5.2.2
//    … Mailbox Full'`), else the first one, not preceded or followed by more dotted digits (an IP).
// 2. Otherwise a basic SMTP reply code (`550 User unknown`) is mapped by its text, as the sender
//    maps an SMTP reply without an enhanced code (`enhancedFromBasic` in @mailroom/core).
// 3. Otherwise, only when the report itself says the failure is permanent, a "no such user" text
//    → 5.1.1, a disabled mailbox → 5.2.1 and a "mailbox full" text → 5.2.2 (`permanentStatusFromText`
//    in @mailroom/core), and the reporting MTA's own finding that the domain does not exist → 5.1.2
//    (a null MX, RFC 7505 → 5.1.10); anything else stays null (never a guessed code).
// A code that says only its class (`5.0.0`) says nothing the words cannot say better: it is
// refined by rules 2 and 3 (`refineStatus`), as a more specific code of the same class would be.

const ENHANCED = /(?<![\w.])([245])\.(\d{1,3})\.(\d{1,3})(?!\w|\.\d)/;
// A reply code where SMTP replies are quoted: at a line's start, after `said:`, `smtp;`, `#`, a
// quote, or a session transcript's `<<<` (the server's side: `>>> RCPT TO:<…>` then `<<< 550 …`).
const BASIC = /(?:^|[\n'"#;:(]|<<<|said:?|error:?|returned|response(?: was)?:?|reply:?)[ \t]*([245][0-5]\d)(?=[ \t-]|:|$)/im;
// An SMTP reply quoted with its own enhanced code of the same class: `550 5.1.1`, `550-5.1.1`,
// Amazon SES's `550-'5.2.2`, `554 #5.7.1`.
const QUOTED_REPLY = /(?<![\w.])([245])\d\d[ -]['"]?#?(\1\.\d{1,3}\.\d{1,3})(?!\w|\.\d)/;
// Amazon SES: its own category code and name, then the remote reply in quotes, which may carry no
// enhanced code: `5.3.0 - Other mail system problem 550-'Unknown user …'`.
const CATEGORY_THEN_REPLY = /^\s*[245]\.\d{1,3}\.\d{1,3} - [^'\n]{1,80}? ([245]\d\d)[ -]'([^\n]*)/;
// The reporting MTA found that the recipient's domain does not exist: sendmail's "Host unknown",
// Postfix's "Host or domain name not found", OpenSMTPD's "Domain does not exist", Gmail's "the
// domain … couldn't be found". Not when the text is about our sender's domain.
const NO_SUCH_DOMAIN = /\bhost unknown\b|\bunknown host\b|host or domain name not found|\bdomain (?:name )?(?:does ?n[o']t exist|not found)|\bno such domain\b|\bthe domain \S{1,253} couldn't be found/i;
const ABOUT_OUR_SENDER = /\bsender\b|\bmail from\b/i;
// RFC 7505: a domain that publishes a null MX accepts no mail; its code is 5.1.10.
const NULL_MX = /\bnull MX\b|doesn't receive email according to the administrator/i;

function normalize(code: string): string {
  const [a, b, c] = code.split('.');
  return `${a}.${Number(b)}.${Number(c)}`;
}

/** The first enhanced status code in the text, if any. */
export function findEnhancedCode(text: string): string | null {
  const m = ENHANCED.exec(text);
  return m ? `${m[1]}.${Number(m[2])}.${Number(m[3])}` : null;
}

/** The first basic SMTP reply code quoted in the text, if any. */
export function findBasicCode(text: string): number | null {
  const m = BASIC.exec(text);
  return m?.[1] ? Number(m[1]) : null;
}

/**
 * The status a diagnostic states (rule 1): the enhanced code of a reply it quotes, else — for
 * SES's "category, then reply" form — the reply's reading by its basic code and text when that is
 * more than a class, else the first enhanced code. `fromReply` is true when the code is the
 * remote reply's own, not a reporting MTA's summary.
 */
export function statedStatus(text: string): { status: string; fromReply: boolean } | null {
  const quoted = QUOTED_REPLY.exec(text)?.[2];
  if (quoted) return { status: normalize(quoted), fromReply: true };
  const category = CATEGORY_THEN_REPLY.exec(text);
  if (category) {
    const reading = enhancedFromBasic(Number(category[1]), category[2] ?? '');
    if (!isClassOnly(reading)) return { status: reading, fromReply: true };
  }
  const first = findEnhancedCode(text);
  return first ? { status: first, fromReply: false } : null;
}

/** True for a code that states only its class: `5.0.0`, `4.0.0`. */
export function isClassOnly(status: string | null): boolean {
  return status !== null && /^[245]\.0\.0$/.test(status);
}

/** Rule 3: what a text without codes says of a permanent failure, or null. */
export function permanentStatus(text: string): string | null {
  const reading = permanentStatusFromText(text);
  if (reading) return reading;
  if (ABOUT_OUR_SENDER.test(text)) return null;
  if (NULL_MX.test(text)) return '5.1.10';
  return NO_SUCH_DOMAIN.test(text) ? '5.1.2' : null;
}

/**
 * A status that says only its class, refined by the text: a basic reply code's reading of the
 * same class (rule 2), or for a permanent one what the words say (rule 3). A null MX refines a
 * failed `4.0.0` too (Gmail reports it so): RFC 7505 makes it permanent. The status is kept when
 * the text says nothing more.
 */
export function refineStatus(status: string, text: string): string {
  if (!isClassOnly(status)) return status;
  const basic = findBasicCode(text);
  const reading = basic !== null && String(basic)[0] === status[0] ? enhancedFromBasic(basic, text) : null;
  if (reading && !isClassOnly(reading)) return reading;
  if (status === '5.0.0') return permanentStatus(text) ?? status;
  if (status === '4.0.0' && NULL_MX.test(text) && !ABOUT_OUR_SENDER.test(text)) return '5.1.10';
  return status;
}

/** Rules 1–3 above. `permanent` is true when the report says the failure is permanent. */
export function statusFromText(text: string, options: { permanent?: boolean } = {}): string | null {
  const stated = statedStatus(text);
  if (stated) return refineStatus(stated.status, text);
  const basic = findBasicCode(text);
  if (basic !== null) return refineStatus(enhancedFromBasic(basic, text), text);
  return options.permanent ? permanentStatus(text) : null;
}

/** The action a status implies when a report gives none. */
export function actionFromStatus(status: string | null): 'failed' | 'delayed' | 'delivered' {
  if (status?.startsWith('2.')) return 'delivered';
  if (status?.startsWith('4.')) return 'delayed';
  return 'failed';
}

// How MTAs say which command a quoted reply answered, when it was the message itself: Postfix's
// "(in reply to end of DATA command)", Exim's "SMTP error from remote mail server after end of data".
const REPLY_TO_DATA = /\bin reply to (?:end of )?DATA command\b|\bafter (?:pipelined )?(?:end of data|DATA)\b/i;

/** True when the text says the reply it quotes answered DATA or the message's end. */
export function saysAnsweredData(text: string): boolean {
  return REPLY_TO_DATA.test(text);
}
