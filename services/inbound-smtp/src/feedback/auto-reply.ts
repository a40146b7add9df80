import { header } from './mime';
import type { ReportMessage } from './report-message';

// Telling automatic replies (RFC 3834: out of office, vacation, ticket acknowledgements,
// challenge-response) from bounces. Both arrive at the VERP return path and both are often
// marked `Auto-Submitted`, so the marks only count once the message does not look like a
// bounce (formats/generic.ts `looksLikeBounce`). All patterns here are anchored or free of
// nested quantifiers: linear on hostile input.

// Subjects of vacation replies, as the common clients write them in English, German, French,
// Spanish, Italian, Portuguese, Dutch, the Nordic languages, Polish, Chinese and Japanese.
const AUTO_REPLY_SUBJECT =
  /out of (?:the )?office|automatic reply|auto(?:matic)?[- ]?(?:reply|response)|vacation|abwesenheit|automatische antwort|r[ée]ponse automatique|absence du bureau|respuesta autom[áa]tica|fuera de la oficina|risposta automatica|fuori sede|resposta autom[áa]tica|automatisch antwoord|niet aanwezig|autosvar|automaattinen vastaus|odpowied[źz] automatyczna|自动回复|自動回覆|自動応答|自動返信/i;

// The subject prefix a vacation responder puts before the original subject ("Automatic reply:
// <subject>"), in the languages of AUTO_REPLY_SUBJECT above. Only the prefix with its
// colon counts: what follows is the original's subject, which may say anything ("… nicht
// zustellbar"), and a bare "Out of office policy update" can be the subject of a bounce.
const VACATION_PREFIX =
  /^[ \t]*(?:(?:re|aw|sv|vs|antw|fw|fwd|wg|tr)[ \t]*:[ \t]*)?(?:out of (?:the )?office|automatic reply|auto(?:matic)?[- ]?(?:reply|response)|automatische antwort|abwesenheitsnotiz|r[ée]ponse automatique|respuesta autom[áa]tica|risposta automatica|resposta autom[áa]tica|automatisch antwoord|autosvar|automaattinen vastaus|odpowied[źz] automatyczna|自动回复|自動回覆|自動応答|自動返信)[ \t\u00a0]*[:：]/i;

// An SMTP reply quoted with its enhanced code, of the same class ("550 5.1.1", "451-4.7.1"):
// what a bounce quotes and an automatic reply does not.
const QUOTED_SMTP_REPLY = /(?<![\w.])([245])\d\d[ -]\1\.\d{1,3}\.\d{1,3}(?![\w.])/;

/** True when the subject is a vacation reply's, anywhere in it ("Out of office", "Abwesenheit"). */
export function hasVacationSubject(subject: string): boolean {
  return AUTO_REPLY_SUBJECT.test(subject);
}

/** True when the subject starts with a vacation responder's prefix ("Automatic reply: …"). */
export function hasVacationPrefix(subject: string): boolean {
  return VACATION_PREFIX.test(subject);
}

/** True when the text quotes an SMTP reply with its enhanced status code. */
export function quotesSmtpReply(text: string): boolean {
  return QUOTED_SMTP_REPLY.test(text);
}

/**
 * The marks only a reply to a message carries (not a report, which may well be
 * `auto-generated`): `Auto-Submitted: auto-replied`, `X-Autoreply`, `X-Autorespond`,
 * `Precedence: auto_reply`, or a vacation subject prefix.
 */
export function isMarkedAsReply(message: ReportMessage): boolean {
  return (
    /^\s*auto-replied/i.test(header(message.root, 'auto-submitted') ?? '') ||
    hasResponderHeader(message) ||
    /^\s*auto_reply/i.test(header(message.root, 'precedence') ?? '') ||
    hasVacationPrefix(message.subject)
  );
}

/** `X-Autoreply` or `X-Autorespond`: the non-standard headers autoresponders stamp on their replies. */
function hasResponderHeader(message: ReportMessage): boolean {
  return header(message.root, 'x-autoreply') !== undefined || header(message.root, 'x-autorespond') !== undefined;
}

/**
 * Any mark of an automatic message: `Auto-Submitted` with any value but `no`, Exchange's
 * `X-Auto-Response-Suppress`, `X-Autoreply`, `X-Autorespond`, and `Precedence: auto_reply`,
 * `bulk` or `junk` (RFC 3834 §3.1.8: what vacation(1), old Gmail, OTRS and challenge-response
 * systems mark their replies with).
 */
export function hasAutomaticMark(message: ReportMessage): boolean {
  const autoSubmitted = (header(message.root, 'auto-submitted') ?? '').trim().toLowerCase();
  return (
    (autoSubmitted !== '' && !autoSubmitted.startsWith('no')) ||
    header(message.root, 'x-auto-response-suppress') !== undefined ||
    hasResponderHeader(message) ||
    /^\s*(?:auto_reply|bulk|junk)\b/i.test(header(message.root, 'precedence') ?? '')
  );
}
