import { isMarkedAsReply } from '../auto-reply';
import { findOriginal } from '../report-message';
import { feedbackType, rcptTo } from './arf-fields';
import type { ReportFormat } from './format';

// A complaint in plain text (a provider's text-only report, a forwarded "this is spam", an ARF
// whose original was stripped to a few lines). It counts only when the text says it is a
// complaint AND an identifier of the original survives in it: a Message-ID header line or a
// VERP return path. Otherwise nothing can be matched and it stays unknown. A message marked as
// an automatic reply (a helpdesk's "your complaint about … has been received", quoting the
// original) is not a complaint, however it words itself.
const COMPLAINT = /abuse report|spam (?:complaint|report)|complaint about|reported (?:as|this message as) (?:spam|junk)|marked (?:as )?(?:spam|junk)|feedback[- ]loop|feedback report/i;

export const arfText: ReportFormat = {
  name: 'text-complaint',
  read(message) {
    if (isMarkedAsReply(message) || !COMPLAINT.test(`${message.subject}\n${message.text}`)) return null;
    const original = findOriginal(message);
    if (!original.messageId && !original.returnPath) return null;
    const type = /^Feedback-Type:\s*(\S+)/im.exec(message.text)?.[1];
    const originalRcptTo = rcptTo(/^Original-Rcpt-To:\s*(\S+)/im.exec(message.text)?.[1]);
    return {
      kind: 'arf',
      feedbackType: feedbackType(type),
      original,
      ...(originalRcptTo ? { originalRcptTo } : {}),
      format: 'text-complaint',
    };
  },
};
