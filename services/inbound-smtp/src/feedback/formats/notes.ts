import type { DsnRecipient } from '../report';
import { findOriginal } from '../report-message';
import { beforeCopy, type ReportFormat, textRecipient } from './format';

// Lotus Notes' SMTP MTA (older than Domino's "was not delivered to:" text, domino.ts): a
// "------- Failure Reasons --------" section of a reason line followed by the address it is
// about, then "------- Returned Message --------" and the original. "User not listed in public
// Name & Address Book" (in Japanese installations "ディレクトリのリストにありません", not in the
// directory) is a 5.1.1.
const SECTION = /^-{3,}[ \t]*Failure Reasons[ \t]*-{3,}[ \t]*$/m;
const COPY = [/^-{3,}[ \t]*Returned Message[ \t]*-{3,}/m];
const ADDRESS = /^[ \t]*<?([^\s<>@]+@[^\s<>]+?)>?[ \t]*$/;
const NOT_IN_DIRECTORY = /ディレクトリのリストにありません/;

export const notes: ReportFormat = {
  name: 'notes',
  read(message) {
    const section = SECTION.exec(message.text);
    if (!section) return null;
    const { head, end } = beforeCopy(message.text, COPY);
    const recipients: DsnRecipient[] = [];
    let reason = '';
    for (const line of head.slice(section.index + section[0].length).split('\n')) {
      const address = ADDRESS.exec(line)?.[1];
      if (!address) {
        if (line.trim()) reason = line.trim();
        continue;
      }
      const status = NOT_IN_DIRECTORY.test(reason) ? { status: '5.1.1' } : {};
      recipients.push(textRecipient(address, reason || line, { action: 'failed', permanent: true, ...status }));
    }
    if (recipients.length === 0) return null;
    return { kind: 'dsn', recipients, original: findOriginal(message, end), format: 'notes' };
  },
};
