import { header } from '../mime';
import { findOriginal } from '../report-message';
import { addressBlocks, beforeCopy, type ReportFormat, textRecipient } from './format';

// Exim (also GMX, Mail.ru and most cPanel hosts): "This message was created automatically by
// mail delivery software." then either "could not be delivered … The following address(es)
// failed:" or a delay warning "has not yet been delivered … after more than N hours". Each
// address sits indented two spaces, its explanation indented further below it. GMX (and 1&1)
// write each address quoted at the line's start, `"a@example.com":`, its explanation unindented
// below it up to the next address or a blank line; other builds the address unindented, its
// explanation indented, or a lone address's explanation unindented after a blank line.
const INTRO = /This message was created automatically by mail delivery software/;
const COPY = [/^-{3,} This is a copy of the message/m, /^-{3,} The header of the original message is following/m, /^-{3,} This is a copy of the message's headers/m];
const QUOTED_ADDRESS = /^"([^"\s<>@]+@[^"\s<>]+)":[ \t]*()$/m;
// 1&1 (IONOS) writes each address unindented on a line of its own, then one explanation for all
// of them after "For the following reason:".
const REASON = /^For the following reason:[ \t]*$/m;
// Some builds write the address unindented with a colon, its explanation indented below it
// (`a@example.de:⏎  quota exceeded`).
const UNINDENTED_ADDRESS = /^<?([^\s<>@"]+@[^\s<>:"]+)>?:[ \t]*(.*)$/;
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
      : addressBlocks(body, /^ {1,3}<?([^\s<>@]+@[^\s<>:]+|[^\s<>@:]+(?=[ \t]*$))>?:?[ \t]*(.*)$/, /^\S/);
    if (blocks.length === 0) blocks.push(...addressBlocks(body, UNINDENTED_ADDRESS, /^\S/));
    if (blocks.length === 0) blocks.push(...unindentedBlocks(body));
    if (blocks.length === 0) return null;
    const [only] = blocks;
    if (blocks.length === 1 && only && only.body.trim() === '') only.body = explanationBelow(body, only.address);
    const failed = (header(message.root, 'x-failed-recipients') ?? '').split(',').map((a) => a.trim());
    for (const block of blocks) {
      // A local address, failed before its domain was added, is named whole in X-Failed-Recipients.
      if (!block.address.includes('@')) block.address = failed.find((a) => a.toLowerCase().startsWith(`${block.address.toLowerCase()}@`)) ?? block.address;
    }
    const permanent = /This is a permanent error/.test(head);
    const recipients = blocks.map((b) => {
      const recipient = textRecipient(b.address, b.body, { permanent, action: delayed ? 'delayed' : 'failed' });
      if (!recipient.status && EXPIRED.test(b.body)) recipient.status = '4.4.7';
      return recipient;
    });
    return { kind: 'dsn', recipients, original: findOriginal(message, end), format: 'exim' };
  },
};

/**
 * An address's explanation written unindented after a blank line, where the address is the only
 * one (T-Online's relay: `  <a@x>`, a blank line, then "SMTP error from remote server after RCPT
 * command:⏎host …:⏎550 user unknown"): the text after the address's line.
 */
function explanationBelow(body: string, address: string): string {
  const lines = body.split('\n');
  const line = lines.findIndex((l) => l.includes(address));
  return line < 0 ? '' : lines.slice(line + 1).join('\n').trim();
}

/** 1&1's form: the lines before "For the following reason:" that hold only an address, each explained by the text after it. */
function unindentedBlocks(body: string): { address: string; body: string }[] {
  const reason = REASON.exec(body);
  if (!reason) return [];
  const explanation = body.slice(reason.index + reason[0].length);
  return [...body.slice(0, reason.index).matchAll(/^<?([^\s<>@"]+@[^\s<>"]+?)>?[ \t]*$/gm)].map((m) => ({ address: m[1] as string, body: explanation }));
}
