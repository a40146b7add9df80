import { findOriginal } from '../report-message';
import { addressBlocks, type ReportFormat, textRecipient } from './format';

// The classic Hotmail / Windows SMTP service text: "This is an automatically generated Delivery
// Status Notification." with "Delivery to the following recipients failed." (or "has been
// delayed.", or "Unable to deliver message to the following recipients, due to …"), then the
// indented addresses. Outlook.com today sends RFC 3464 reports, read by rfc3464.
const INTRO = /This is an automatically generated Delivery Status Notification/;
const LIST = /^(Delivery to the following recipients (failed|has been delayed)|Unable to deliver message to the following recipients[^\n]*)\.?[ \t]*$/m;

export const hotmail: ReportFormat = {
  name: 'hotmail',
  read(message) {
    if (!INTRO.test(message.text)) return null;
    const list = LIST.exec(message.text);
    if (!list) return null;
    const delayed = list[2] === 'has been delayed';
    const rest = message.text.slice((list.index ?? 0) + list[0].length);
    const blocks = addressBlocks(rest, /^[ \t]+<?([^\s<>@]+@[^\s<>]+?)>?[ \t]*(?:\((.*)\)[ \t]*)?$/, /^\S/);
    if (blocks.length === 0) return null;
    const recipients = blocks.map((b) => textRecipient(b.address, `${b.body}\n${list[1] ?? ''}`.trim(), { action: delayed ? 'delayed' : 'failed', permanent: !delayed }));
    return { kind: 'dsn', recipients, original: findOriginal(message), format: 'hotmail' };
  },
};
