/**
 * Reading bounce reports and feedback reports (DESIGN §7 "Feedback"): pure functions, no
 * database. `readReport` turns a received report into what it says; the caller maps DSN
 * recipients through `classifyBounce` and trusts the VERP address it arrived at over any
 * address the text names.
 *
 * Families read (one module each in ./formats, tried in the order of formats/index.ts):
 * - ARF (RFC 5965) feedback reports, named by provider: Yahoo CFL, AOL/Verizon SComp,
 *   Mail.ru, Validity/Return Path (Comcast, …), others as `arf`;
 * - Microsoft JMRP (Outlook.com/Hotmail junk reports: multipart/mixed + message/rfc822);
 * - RFC 3464 delivery status notifications (message/ and text/delivery-status) and RFC 6533
 *   message/global-delivery-status — what Amazon SES, Gmail, Outlook.com, Exchange Online,
 *   Postfix, Sendmail and modern Exim send;
 * - plain-text bounces: qmail, Exim, Postfix, Sendmail, Exchange 2003–Office 365, Gmail,
 *   Yahoo, classic Hotmail/Windows SMTP, Lotus Notes/Domino, Courier, OpenSMTPD, DragonFly Mail Agent;
 * - plain-text complaints in which the original's Message-ID or VERP return path survives;
 * - a generic bounce (from MAILER-DAEMON/postmaster or with a bounce subject) quoting a code.
 * Automatic replies (out of office) are recognised and reported as `auto-reply`, a person's
 * message with a message attached by hand (personal-message.ts) as `personal`; anything else is
 * `unknown`, which the caller records as a soft bounce with code null.
 *
 * Bounded on hostile input: only the first MAX_SCAN_BYTES are parsed, nesting and part counts
 * are capped (mime.ts), text scans are capped (text.ts), and nothing here throws.
 */
import { hasAutomaticMark, hasVacationSubject } from './auto-reply';
import { FORMATS } from './formats';
import { looksLikeBounce } from './formats/generic';
import { withNotificationText } from './notification-text';
import type { Report } from './report';
import { isPersonalMessage } from './personal-message';
import { type ReportMessage, readMessage } from './report-message';
import { normalizeText } from './text';

export { classifyBounce, type BounceClass } from './classify-bounce';
export type { DsnAction, DsnRecipient, FeedbackType, OriginalRef, Report } from './report';

/** Characters of text an unknown report or auto-reply keeps. */
const KEPT_TEXT_CHARS = 8_000;

/** Reads a report; resolves to `unknown` (never rejects) for anything it cannot read. */
export async function readReport(raw: Buffer): Promise<Report> {
  try {
    const message = readMessage(raw);
    for (const format of FORMATS) {
      const report = format.read(message);
      if (report) return report.kind === 'dsn' && (report.format === 'rfc3464' || report.format === 'rfc6533') ? withNotificationText(report, message) : report;
    }
    const text = keptText(message, raw);
    if (isAutoReply(message)) return { kind: 'auto-reply', text };
    return isPersonalMessage(message) ? { kind: 'personal', text } : { kind: 'unknown', text };
  } catch {
    return { kind: 'unknown', text: normalizeText(raw.subarray(0, KEPT_TEXT_CHARS).toString('utf8')) };
  }
}

function keptText(message: ReportMessage, raw: Buffer): string {
  const text = message.text.trim() ? message.text : normalizeText(raw.subarray(0, KEPT_TEXT_CHARS).toString('utf8'));
  return text.slice(0, KEPT_TEXT_CHARS);
}

/**
 * An automatic reply: a message that does not look like a bounce (formats/generic.ts) with a
 * mark of an automatic message (auto-reply.ts `hasAutomaticMark`: RFC 3834 `Auto-Submitted`,
 * Exchange's `X-Auto-Response-Suppress`, `X-Autoreply`, `X-Autorespond`, `Precedence:
 * auto_reply`/`bulk`/`junk`) or a vacation subject. RFC 3834 §4 sends such replies to the
 * return path, so they reach the VERP address routinely.
 */
function isAutoReply(message: ReportMessage): boolean {
  // Bounces carry Auto-Submitted and Precedence too; an unreadable bounce stays unknown (a soft bounce).
  if (looksLikeBounce(message)) return false;
  return hasAutomaticMark(message) || hasVacationSubject(message.subject);
}
