import { header, walk } from '../mime';
import { findOriginal, originalFromHeaders } from '../report-message';
import { type ReportFormat, textRecipient } from './format';

// An MTA of Japanese ISPs (Sisimai's "X1"), from "Mail Deliver System": "---The following
// addresses had delivery errors---", then one "address [reason]" line per recipient. The
// original's header follows as the header of the next MIME part (a part with no Content-Type
// of its own), so its Message-ID is read from there.
const SECTION = /^-{3}The following addresses had delivery errors-{3}[ \t]*$/m;
const LINE = /^<?([^\s<>@]+@[^\s<>]+?)>?[ \t]+\[([^\]\n]{1,200})\][ \t]*$/gm;

export const x1: ReportFormat = {
  name: 'x1',
  read(message) {
    const section = SECTION.exec(message.text);
    if (!section) return null;
    const recipients = [...message.text.slice(section.index).matchAll(LINE)].map((m) => textRecipient(m[1], m[2] ?? '', { action: 'failed', permanent: true }));
    if (recipients.length === 0) return null;
    const copy = walk(message.root, { intoMessages: false }).find((e) => e !== message.root && header(e, 'message-id') !== undefined);
    const original = copy ? { ...findOriginal(message), ...originalFromHeaders(copy) } : findOriginal(message);
    return { kind: 'dsn', recipients, original, format: 'x1' };
  },
};
