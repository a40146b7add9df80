import { header } from '../mime';
import { findOriginal } from '../report-message';
import { beforeCopy, type ReportFormat, textRecipient } from './format';

// Ipswitch IMail Server (X-Mailer "<SMTP32 v…>"): one "reason: address" line per recipient, then
// "Original message follows.". Its reasons carry no codes: "Unknown user", "Invalid final
// delivery userid" (no such mailbox → 5.1.1), "User mailbox exceeds allowed size", "Host unknown".
const MAILER = /^<?SMTP32 v/i;
const COPY = [/^Original message follows\.[ \t]*$/m];
const LINE = /^([A-Za-z][^:\n]{2,80}): <?([^\s<>@]+@[^\s<>]+?)>?[ \t]*$/gm;
const INVALID_USERID = /invalid final delivery userid/i;

export const imail: ReportFormat = {
  name: 'imail',
  read(message) {
    if (!MAILER.test(header(message.root, 'x-mailer') ?? '')) return null;
    const { head, end } = beforeCopy(message.text, COPY);
    const recipients = [...head.matchAll(LINE)].map((m) =>
      textRecipient(m[2], m[1] ?? '', { action: 'failed', permanent: true, ...(INVALID_USERID.test(m[1] ?? '') ? { status: '5.1.1' } : {}) }),
    );
    if (recipients.length === 0) return null;
    return { kind: 'dsn', recipients, original: findOriginal(message, end), format: 'imail' };
  },
};
