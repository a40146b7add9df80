import { header } from '../mime';
import { findOriginal } from '../report-message';
import { type ReportFormat, textRecipient } from './format';

// Zoho Mail: Exim's opening sentences, then one line per recipient, "address Reason,
// ERROR_CODE :550, ERROR_CODE :<reply text>", the reply's basic code and text in two fields.
const MAILER = /zoho mail/i;
const LINE = /^<?([^\s<>@]+@[^\s<>,]+?)>?[ \t]+([^\n]*?),?[ \t]*ERROR_CODE[ \t]*:[ \t]*([245]\d\d)[ \t]*,[ \t]*ERROR_CODE[ \t]*:[ \t]*([^\n]*)$/gm;

export const zoho: ReportFormat = {
  name: 'zoho',
  read(message) {
    if (!MAILER.test(`${header(message.root, 'x-mailer') ?? ''} ${header(message.root, 'user-agent') ?? ''}`)) return null;
    const recipients = [...message.text.matchAll(LINE)].map((m) => {
      const delayed = m[3]?.startsWith('4') ?? false;
      return textRecipient(m[1], `${m[3]} ${m[4]} (${m[2]})`, { action: delayed ? 'delayed' : 'failed', permanent: !delayed });
    });
    if (recipients.length === 0) return null;
    return { kind: 'dsn', recipients, original: findOriginal(message), format: 'zoho' };
  },
};
