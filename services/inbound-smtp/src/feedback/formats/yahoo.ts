import { findOriginal } from '../report-message';
import { addressBlocks, beforeCopy, type ReportFormat, textRecipient } from './format';

// Yahoo Mail: "Sorry, we were unable to deliver your message to the following address.", then
// "<address>:" and a line such as "554: delivery error: dd This user doesn't have a yahoo.com
// account (…) [0] - mta1234.mail.ne1.yahoo.com" or "Remote host said: 550 5.1.1 …", then
// "--- Below this line is a copy of the message.". The classic form (Yahoo, SBC Global, Yahoo
// Small Business): "Message from yahoo.com.", "Unable to deliver message to the following
// address(es).", the same "<address>:" blocks, then "--- Original message follows.".
const INTRO = /Sorry, we were unable to deliver your message to the following address|^Unable to deliver message to the following address\(es\)\.[ \t]*$/m;
const COPY = [/^--- Below this line is a copy of the message\./m, /^--- Original message follows\./m];

export const yahoo: ReportFormat = {
  name: 'yahoo',
  read(message) {
    if (!INTRO.test(message.text)) return null;
    const { head, end } = beforeCopy(message.text, COPY);
    const blocks = addressBlocks(head, /^<([^<>\s]*)>:[ \t]*(.*)$/);
    if (blocks.length === 0) return null;
    const recipients = blocks.map((b) => textRecipient(b.address, b.body, { action: 'failed', permanent: true }));
    return { kind: 'dsn', recipients, original: findOriginal(message, end), format: 'yahoo' };
  },
};
