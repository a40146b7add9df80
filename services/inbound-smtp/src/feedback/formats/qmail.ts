import { findOriginal } from '../report-message';
import { addressBlocks, beforeCopy, type ReportFormat, textRecipient } from './format';

// qmail-send (and netqmail, Yahoo's older MTA): "Hi. This is the qmail-send program at host.",
// one "<address>:" paragraph per recipient with "Remote host said: 550 …" or a local
// "(#5.1.1)" code, then "--- Below this line is a copy of the message.".
const INTRO = /This is the qmail-send program at|I'm afraid I wasn't able to deliver your message to the following addresses/;
const COPY = [/^--- Below this line is a copy of the message\./m, /^--- Enclosed are the original headers of the message\./m];
// "I'm not going to try again; this message has been in the queue too long." — expired.
const EXPIRED = /in the queue too long/;

export const qmail: ReportFormat = {
  name: 'qmail',
  read(message) {
    if (!INTRO.test(message.text)) return null;
    const { head, end } = beforeCopy(message.text, COPY);
    const permanent = /This is a permanent error/.test(head);
    const blocks = addressBlocks(head, /^<([^<>\s]*)>:[ \t]*(.*)$/);
    if (blocks.length === 0) return null;
    const recipients = blocks.map((b) => {
      const expired = EXPIRED.test(b.body) || EXPIRED.test(head);
      const recipient = textRecipient(b.address, b.body, { permanent, action: 'failed' });
      if (!recipient.status && expired) recipient.status = '4.4.7';
      return recipient;
    });
    return { kind: 'dsn', recipients, original: findOriginal(message, end), format: 'qmail' };
  },
};
