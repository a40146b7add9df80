import { enhancedFromBasic } from '@mailroom/core';
import { hasVacationPrefix, quotesSmtpReply } from '../auto-reply';
import type { Report } from '../report';
import { findOriginal, type ReportMessage } from '../report-message';
import { findBasicCode, findEnhancedCode } from '../status-codes';
import { type ReportFormat, textRecipient } from './format';

// The last resort for bounces in no known family: a message that says it is a bounce (from
// MAILER-DAEMON or postmaster, or a subject such as "Undeliverable" or "Returned mail") and
// quotes an SMTP reply with a code. The first line quoting a failure (4.x.x, 5.x.x, a basic code
// of 400 or more; else the first with any code) is the diagnostic. Without a quoted code this
// returns nothing and the report stays unknown (a soft bounce, code null), unless it says
// delivery will be tried again: a delay (delayNotice).
// When lines with codes name different addresses, each address gets its own line as a block,
// so one recipient's reply is never read as another's.
const FROM = /mailer-daemon|postmaster|mail delivery (?:system|subsystem)|\bmdaemon@/i;
// English, then the subjects localized Exchange, Notes and Exim installations write
// (German, French, Spanish, Italian, Dutch, Portuguese, Swedish/Norwegian/Danish, Polish).
export const BOUNCE_WORDS =
  /undeliver|returned mail|delivery (?:status notification|failure|failed|problem)|failure notice|mail delivery failed|non[- ]?delivery|unzustellbar|nicht zustellbar|non remis|non distribuable|[ée]chec de (?:la )?remise|no se puede entregar|no entregado|non recapitabile|onbestelbaar|n[ãa]o entregue|n[ãa]o (?:foi )?poss[íi]vel entregar|kan inte levereras|olevererbar|kan ikke leveres|nie mo[żz]na dostarczy[ćc]/i;

/**
 * True when the message says it is a bounce: it quotes an SMTP reply with its enhanced code
 * ("550 5.1.1"), whoever sent it and whatever its subject; else, unless its subject starts with a
 * vacation responder's prefix ("Automatische Antwort: Ihr Paket ist nicht zustellbar" echoes the
 * original's subject, and misconfigured servers send vacation replies from postmaster@), its
 * sender or subject is a bounce's.
 */
export function looksLikeBounce(message: ReportMessage): boolean {
  if (quotesSmtpReply(message.text)) return true;
  if (hasVacationPrefix(message.subject)) return false;
  return FROM.test(message.from) || BOUNCE_WORDS.test(message.subject);
}

export const generic: ReportFormat = {
  name: 'generic',
  read(message) {
    if (!looksLikeBounce(message)) return null;
    const coded = message.text.split('\n').filter((l) => findEnhancedCode(l) !== null || (findBasicCode(l) ?? 0) >= 400);
    // A transcript quotes the steps that went well (`250 2.1.0 Sender ok`) before the one that
    // failed: the failures are what the report is about, a success only when nothing failed.
    const failures = coded.filter(isFailureLine);
    const lines = failures.length > 0 ? failures : coded;
    const [line] = lines;
    if (line === undefined) return delayNotice(message);
    const perAddress = new Map<string, string>();
    for (const l of lines.slice(0, MAX_CODE_LINES)) {
      const address = findAddress(l);
      if (address && !perAddress.has(address.toLowerCase())) perAddress.set(address.toLowerCase(), l);
    }
    const found: [string | undefined, string][] = perAddress.size > 1 ? [...perAddress] : [[findAddress(line) ?? findAddress(message.text), line]];
    const retrying = /delay|will (?:retry|be retried|try again)|still trying/i.test(message.text);
    const recipients = found.map(([address, text]) => {
      const recipient = textRecipient(address, text, {});
      if (recipient.action === 'delayed' && !retrying) recipient.action = 'failed';
      return recipient;
    });
    return { kind: 'dsn', recipients, original: findOriginal(message), format: 'generic' };
  },
};

// A notice that the message is not delivered yet and will be tried again ("Warning: message has
// not yet been delivered", "Delivery attempts will continue to be made for 5 day(s)", "has been
// postponed due to a full mailbox … We will continue to try"), written with no code.
const DELAY_NOTICE =
  /has not yet been delivered|this is (?:just )?a warning|delivery attempts will continue|will continue (?:to )?(?:try|attempt)(?:ing)?|has been postponed|advisory[- ]only/i;

/**
 * A bounce-like message quoting no code that says delivery is still being tried: a delay for the
 * address it names (4.2.2 when it says the mailbox is full, else 4.0.0), not a failure.
 */
function delayNotice(message: ReportMessage): Report | null {
  if (!DELAY_NOTICE.test(message.text)) return null;
  // Such a notice is short; its opening is the explanation.
  const recipient = textRecipient(findAddress(message.text), message.text.slice(0, 600), { action: 'delayed', status: enhancedFromBasic(400, message.text) });
  return { kind: 'dsn', recipients: [recipient], original: findOriginal(message), format: 'generic' };
}

/** A line quoting a failure: an enhanced code of class 4 or 5, or else a basic code of 400 or more. */
function isFailureLine(line: string): boolean {
  const enhanced = findEnhancedCode(line);
  return enhanced !== null ? !enhanced.startsWith('2.') : (findBasicCode(line) ?? 0) >= 400;
}

/** Lines with codes looked at for addresses: a bounce lists a few recipients, not thousands. */
const MAX_CODE_LINES = 100;

/** The first address in the text that is not ours (a VERP) or a mailer daemon's. */
function findAddress(text: string): string | undefined {
  for (const m of text.matchAll(/([^\s<>@:'"(),;]{1,64}@[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){0,8}\.[a-z]{2,24})(?![a-z0-9-])/gi)) {
    const address = m[1] ?? '';
    if (!/^bounces\+|^mailer-daemon@|^postmaster@/i.test(address)) return address;
  }
  return undefined;
}
