import { hasVacationPrefix, quotesSmtpReply } from '../auto-reply';
import { findOriginal, type ReportMessage } from '../report-message';
import { findBasicCode, findEnhancedCode } from '../status-codes';
import { type ReportFormat, textRecipient } from './format';

// The last resort for bounces in no known family: a message that says it is a bounce (from
// MAILER-DAEMON or postmaster, or a subject such as "Undeliverable" or "Returned mail") and
// quotes an SMTP reply with a code. The line with the first code is the diagnostic. Without a
// quoted code this returns nothing and the report stays unknown (a soft bounce, code null).
const FROM = /mailer-daemon|postmaster|mail delivery (?:system|subsystem)/i;
// English, then the subjects localized Exchange, Notes and Exim installations write
// (German, French, Spanish, Italian, Dutch, Portuguese, Swedish/Norwegian/Danish, Polish).
const SUBJECT =
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
  return FROM.test(message.from) || SUBJECT.test(message.subject);
}

export const generic: ReportFormat = {
  name: 'generic',
  read(message) {
    if (!looksLikeBounce(message)) return null;
    const line = message.text.split('\n').find((l) => findEnhancedCode(l) !== null || (findBasicCode(l) ?? 0) >= 400);
    if (!line) return null;
    const address = findAddress(line) ?? findAddress(message.text);
    const recipient = textRecipient(address, line, {});
    if (recipient.action === 'delayed' && !/delay|will (?:retry|be retried|try again)|still trying/i.test(message.text)) recipient.action = 'failed';
    return { kind: 'dsn', recipients: [recipient], original: findOriginal(message), format: 'generic' };
  },
};

/** The first address in the text that is not ours (a VERP) or a mailer daemon's. */
function findAddress(text: string): string | undefined {
  for (const m of text.matchAll(/([^\s<>@:'"(),;]{1,64}@[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){0,8}\.[a-z]{2,24})(?![a-z0-9-])/gi)) {
    const address = m[1] ?? '';
    if (!/^bounces\+|^mailer-daemon@|^postmaster@/i.test(address)) return address;
  }
  return undefined;
}
