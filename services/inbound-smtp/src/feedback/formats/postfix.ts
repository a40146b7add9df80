import { findOriginal } from '../report-message';
import { addressBlocks, beforeCopy, type ReportFormat, textRecipient } from './format';

// Postfix's human-readable text ("This is the mail system at host …", older "This is the
// Postfix program at host …"): "I'm sorry to have to inform you that your message could not be
// delivered", or "THIS IS A WARNING ONLY" for a delay; then one "<address>: …" paragraph per
// recipient, continuation lines indented.
const INTRO = /This is the (?:mail system|Postfix program) at host|I'm sorry to have to inform you that your message could not/;
const COPY = [/^-{3,}[ \t]*(?:Delivery report|Undelivered message|Message Delivery Status|Original message)/im];

export const postfix: ReportFormat = {
  name: 'postfix',
  read(message) {
    if (!INTRO.test(message.text)) return null;
    const { head, end } = beforeCopy(message.text, COPY);
    const delayed = /THIS IS A WARNING ONLY/i.test(head);
    const blocks = addressBlocks(head, /^<([^<>\s]*)>(?: \(expanded from <[^>]*>\))?:[ \t]*(.*)$/, /^\S|^$/);
    if (blocks.length === 0) return null;
    const recipients = blocks.map((b) => textRecipient(b.address, b.body, { permanent: !delayed, action: delayed ? 'delayed' : 'failed' }));
    return { kind: 'dsn', recipients, original: findOriginal(message, end), format: 'postfix' };
  },
};
