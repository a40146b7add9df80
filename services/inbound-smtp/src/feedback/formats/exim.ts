import { findOriginal } from '../report-message';
import { addressBlocks, beforeCopy, type ReportFormat, textRecipient } from './format';

// Exim (also GMX, Mail.ru and most cPanel hosts): "This message was created automatically by
// mail delivery software." then either "could not be delivered … The following address(es)
// failed:" or a delay warning "has not yet been delivered … after more than N hours". Each
// address sits indented two spaces, its explanation indented further below it. GMX (and 1&1)
// write each address quoted at the line's start, `"a@example.com":`, its explanation unindented
// below it up to the next address or a blank line.
const INTRO = /This message was created automatically by mail delivery software/;
const COPY = [/^-{3,} This is a copy of the message/m, /^-{3,} The header of the original message is following/m, /^-{3,} This is a copy of the message's headers/m];
const QUOTED_ADDRESS = /^"([^"\s<>@]+@[^"\s<>]+)":[ \t]*()$/m;
const EXPIRED = /retry timeout exceeded|retry time not reached for any host after a long failure period/;

export const exim: ReportFormat = {
  name: 'exim',
  read(message) {
    if (!INTRO.test(message.text)) return null;
    const delayed = /has not yet been delivered/.test(message.text);
    if (!delayed && !/could not be delivered/.test(message.text)) return null;
    const { head, end } = beforeCopy(message.text, COPY);
    const list = head.search(/address(?:\(es\)|es)?\s(?:failed|to which the message has not yet been delivered (?:is|are)):?[ \t]*$|(?:are|is) still (?:delayed|pending):?[ \t]*$/m);
    const body = list >= 0 ? head.slice(head.indexOf('\n', list) + 1) : head;
    const blocks = QUOTED_ADDRESS.test(body)
      ? addressBlocks(body, QUOTED_ADDRESS, /^[ \t]*$/)
      : addressBlocks(body, /^ {1,3}<?([^\s<>@]+@[^\s<>:]+)>?:?[ \t]*(.*)$/, /^\S/);
    if (blocks.length === 0) return null;
    const permanent = /This is a permanent error/.test(head);
    const recipients = blocks.map((b) => {
      const recipient = textRecipient(b.address, b.body, { permanent, action: delayed ? 'delayed' : 'failed' });
      if (!recipient.status && EXPIRED.test(b.body)) recipient.status = '4.4.7';
      return recipient;
    });
    return { kind: 'dsn', recipients, original: findOriginal(message, end), format: 'exim' };
  },
};
