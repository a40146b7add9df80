import { header } from '../mime';
import { attachedOriginal, findOriginal } from '../report-message';
import { rcptTo } from './arf-fields';
import type { ReportFormat } from './format';

// Microsoft's Junk Mail Reporting Program (Outlook.com, Hotmail): not strict ARF but a
// multipart/mixed with a short text part and the complained-about message as a message/rfc822
// attachment; the complaining address is in X-HmXmrOriginalRecipient. Every JMRP report is a
// junk ("abuse") complaint.
const SENDER = /hotmail|outlook|msn\.com|microsoft/i;
const TEXT = /abuse report|junk mail reporting|postmaster\.(?:live|msn|outlook)\.com|complaint about message/i;

export const arfJmrp: ReportFormat = {
  name: 'jmrp',
  read(message) {
    const recipient = header(message.root, 'x-hmxmroriginalrecipient');
    if (!recipient && !(SENDER.test(message.from) && TEXT.test(`${message.subject}\n${message.text}`))) return null;
    if (!attachedOriginal(message)) return null;
    const originalRcptTo = rcptTo(recipient);
    return {
      kind: 'arf',
      feedbackType: 'abuse',
      original: findOriginal(message),
      ...(originalRcptTo ? { originalRcptTo } : {}),
      format: 'jmrp',
    };
  },
};
