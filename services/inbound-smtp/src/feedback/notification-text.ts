import { TEXT_FORMATS } from './formats';
import type { DsnRecipient, Report } from './report';
import type { ReportMessage } from './report-message';
import { isClassOnly } from './status-codes';

type DsnReport = Extract<Report, { kind: 'dsn' }>;

/**
 * A delivery-status part whose recipient groups carry no Diagnostic-Code (OpenSMTPD always,
 * some Exim builds) says no more than `Action: failed` and `Status: 5.0.0`; the human-readable
 * part beside it quotes what the remote server said ("a@example.org: 550 5.1.1 … User unknown").
 * For such recipients the text families' reading of the same message (formats/index.ts
 * `TEXT_FORMATS`) gives the diagnostic, and the status where the Status field is missing or says
 * only its class (`5.0.0`), in the same class: the structured part's Action and class stand.
 * A recipient is matched by address, or as the only recipient of both readings.
 */
export function withNotificationText(report: DsnReport, message: ReportMessage): DsnReport {
  if (report.recipients.every((r) => r.diagnostic !== null)) return report;
  const text = textReading(message);
  if (text === null) return report;
  const recipients = report.recipients.map((recipient) => {
    if (recipient.diagnostic !== null) return recipient;
    const told = counterpart(recipient, report.recipients.length, text.recipients);
    if (!told?.diagnostic) return recipient;
    const { status } = recipient;
    const refine = told.status !== null && (status === null || (isClassOnly(status) && told.status[0] === status[0]));
    return { ...recipient, status: refine ? told.status : status, diagnostic: told.diagnostic };
  });
  return { ...report, recipients };
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
