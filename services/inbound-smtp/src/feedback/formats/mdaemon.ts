import { findOriginal } from '../report-message';
import { type ReportFormat, textRecipient } from './format';

// MDaemon (Alt-N): from `MDaemon@<host>`, subject "Warning: <address> - User unknown!" (the same
// "Warning:" for a permanent failure), and one "<address> - <reason>" line per recipient
// ("a@x - no such user here." then "There is no user by that name at this server."). It marks its
// notices `Precedence: bulk`, which must not make one an automatic reply (generic.ts FROM).
const FROM = /\bmdaemon@/i;
const LINE = /^([^\s<>@:]{1,64}@[^\s<>:]{1,253}) - (.{1,500})$/gm;
// MDaemon's notices of a message it keeps trying to send.
const RETRYING = /will (?:continue|keep) (?:trying|attempting)|still (?:trying|attempting)|will be retried/i;

export const mdaemon: ReportFormat = {
  name: 'mdaemon',
  read(message) {
    if (!FROM.test(message.from)) return null;
    const delayed = RETRYING.test(message.text);
    const recipients = [...message.text.matchAll(LINE)].map((m) => {
      // The sentence after the line says it again, in other words: read with it.
      const after = message.text.slice((m.index ?? 0) + m[0].length).split('\n\n', 2)[1]?.split('\n')[0] ?? '';
      return textRecipient(m[1], `${m[2]} ${after}`.trim(), { action: delayed ? 'delayed' : 'failed', permanent: !delayed });
    });
    if (recipients.length === 0) return null;
    return { kind: 'dsn', recipients, original: findOriginal(message), format: 'mdaemon' };
  },
};
