import type { DsnRecipient } from '../report';
import { findOriginal } from '../report-message';
import { addressBlocks, beforeCopy, type ReportFormat, textRecipient } from './format';

// Sendmail: "----- The following addresses had permanent fatal errors -----" (or "transient
// non-fatal errors" in a "Warning: could not send message for past 4 hours" delay), each
// "<address>" followed by "(reason: 550 5.1.1 …)", then "----- Transcript of session follows
// -----" with the remote replies. Without an address list, the transcript's replies are read:
// "550 5.1.1 <a@x>... User unknown", or sendmail V5's "554 <a@x>... 550 Host unknown" with no
// enhanced code.
const TRANSCRIPT = /-{3,} Transcript of session follows -{3,}/;
const SECTION = /^[ \t]*-{3,} The following addresses had (permanent fatal|transient non-fatal) errors -{3,}[ \t]*$/m;
const COPY = [/^[ \t]*-{3,} (?:Original message follows|Message header follows|Unsent message follows|Returned mail follows)/im];

export const sendmail: ReportFormat = {
  name: 'sendmail',
  read(message) {
    const section = SECTION.exec(message.text);
    if (!section && !TRANSCRIPT.test(message.text)) return null;
    const { head, end } = beforeCopy(message.text, COPY);
    const delayed = section?.[1] === 'transient non-fatal' || /^Warning: could not send message/i.test(message.subject);
    const action = delayed ? 'delayed' : 'failed';
    const transcript = head.slice(Math.max(0, head.search(TRANSCRIPT)));
    let recipients: DsnRecipient[] = [];
    if (section) {
      const list = head.slice(head.indexOf(section[0]) + section[0].length).split(TRANSCRIPT)[0] ?? '';
      recipients = addressBlocks(list, /^<?([^\s<>@]+@[^\s<>]+?)>?[ \t]*$/, /^\s*-{3,}/).map((b) => {
        const reason = /\(reason: ([\s\S]*?)\)\s*(?:\n|$)/.exec(b.body)?.[1] ?? replyFor(transcript, b.address) ?? b.body;
        return textRecipient(b.address, reason, { action, permanent: !delayed });
      });
    }
    if (recipients.length === 0) {
      for (const m of transcript.matchAll(/^([45])\d\d[ -](?:[45]\.\d{1,3}\.\d{1,3} )?<([^<>\s]+)>\.\.\. (.*)$/gm)) {
        recipients.push(textRecipient(m[2], m[0], { action: m[1] === '4' && delayed ? 'delayed' : 'failed' }));
      }
    }
    if (recipients.length === 0) return null;
    return { kind: 'dsn', recipients, original: findOriginal(message, end), format: 'sendmail' };
  },
};

/** The remote reply in the transcript that names the address (`<<< 550 5.1.1 <a@x>... User unknown`). */
function replyFor(transcript: string, address: string): string | undefined {
  const lines = transcript.split('\n').filter((l) => /^(?:<<< )?[45]\d\d[ -]/.test(l.trim()));
  return (lines.find((l) => l.toLowerCase().includes(address.toLowerCase())) ?? lines.at(-1))?.trim();
}
