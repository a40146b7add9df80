import { TEXT_FORMATS } from './formats';
import type { DsnRecipient, Report } from './report';
import type { ReportMessage } from './report-message';
import { findEnhancedCode, isClassOnly, saysAnsweredData } from './status-codes';

type DsnReport = Extract<Report, { kind: 'dsn' }>;

/**
 * A delivery-status part whose recipient groups carry no Diagnostic-Code (OpenSMTPD always,
 * some Exim builds) says no more than `Action: failed` and `Status: 5.0.0`; the human-readable
 * part beside it quotes what the remote server said ("a@example.org: 550 5.1.1 … User unknown").
 * For such recipients the text families' reading of the same message (formats/index.ts
 * `TEXT_FORMATS`) gives the diagnostic, and the status where the Status field is missing or says
 * only its class (`5.0.0`), in the same class: the structured part's Action and class stand.
 * A recipient is matched by address, or as the only recipient of both readings. The text also
 * says whether the reply answered DATA (`answeredData`), where that matters (`phaseMatters`).
 */
export function withNotificationText(report: DsnReport, message: ReportMessage): DsnReport {
  if (!report.recipients.some((r) => r.diagnostic === null || phaseMatters(r))) return report;
  const text = textReading(message);
  if (text === null) return report;
  const recipients = report.recipients.map((recipient) => {
    const told = counterpart(recipient, report.recipients.length, text.recipients);
    if (!told) return recipient;
    const answeredData = told.answeredData === true || saysAnsweredData(told.diagnostic ?? '');
    const withPhase = answeredData && phaseMatters(recipient) ? { ...recipient, answeredData } : recipient;
    if (recipient.diagnostic !== null || !told.diagnostic) return withPhase;
    const { status } = recipient;
    const refine = told.status !== null && (status === null || (isClassOnly(status) && told.status[0] === status[0]));
    return { ...withPhase, status: refine ? told.status : status, diagnostic: told.diagnostic };
  });
  return { ...report, recipients };
}

/**
 * Whether which command the reply answered could change the outcome: a 5.1.x status with no
 * enhanced code in the diagnostic (read from its words; see bounceSuppressesAddress). The text
 * part says it where the Diagnostic-Code does not: Postfix's "(in reply to end of DATA command)",
 * sendmail's `>>> DATA` before the reply.
 */
function phaseMatters(recipient: DsnRecipient): boolean {
  return recipient.status?.startsWith('5.1.') === true && findEnhancedCode(recipient.diagnostic ?? '') === null;
}

/** The first text family's reading of the message, when one reads it as a bounce. */
function textReading(message: ReportMessage): DsnReport | null {
  for (const format of TEXT_FORMATS) {
    const report = format.read(message);
    if (report) return report.kind === 'dsn' ? report : null;
  }
  return null;
}

function counterpart(recipient: DsnRecipient, structuredCount: number, told: readonly DsnRecipient[]): DsnRecipient | undefined {
  const names = [recipient.finalRecipient, recipient.originalRecipient].flatMap((a) => (a ? [a.toLowerCase()] : []));
  const byAddress = told.find((t) => t.finalRecipient !== undefined && names.includes(t.finalRecipient.toLowerCase()));
  if (byAddress) return byAddress;
  return structuredCount === 1 && told.length === 1 ? told[0] : undefined;
}
