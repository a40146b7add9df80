import { findOriginal } from '../report-message';
import { addressBlocks, type ReportFormat, textRecipient } from './format';

// Courier MTA: "This is a delivery status notification from host, running the Courier mail
// server", an "UNDELIVERABLE MAIL" (or "DELAYED MAIL") section with "<address>:" blocks that
// quote the session (">>> RCPT TO:<…>", "<<< 550 5.1.1 …").
const INTRO = /running the Courier mail server/;

export const courier: ReportFormat = {
  name: 'courier',
  read(message) {
    if (!INTRO.test(message.text)) return null;
    const delayed = /^[ \t]*DELAYED MAIL[ \t]*$/m.test(message.text);
    const blocks = addressBlocks(message.text, /^<([^<>\s]+@[^<>\s]+)>:[ \t]*(.*)$/, /^-{10,}/);
    if (blocks.length === 0) return null;
    const recipients = blocks.map((b) => {
      const replies = b.body.split('\n').filter((l) => l.startsWith('<<< ')).map((l) => l.slice(4)).join('\n');
      return textRecipient(b.address, replies || b.body, { action: delayed ? 'delayed' : 'failed', permanent: !delayed });
    });
    return { kind: 'dsn', recipients, original: findOriginal(message), format: 'courier' };
  },
};
