import { findOriginal } from '../report-message';
import { beforeCopy, type ReportFormat, textRecipient } from './format';

// DragonFly Mail Agent (dma, the small MTA of DragonFly BSD and others): "This is the DragonFly
// Mail Agent v0.13 at host.", "There was an error delivering your mail to <address>.", dma's
// reason, then "Message headers follow." (or "Original message follows.") and the copy, one
// bounce per recipient. A remote refusal is quoted with its reply ("mx [192.0.2.1] did not like
// our RCPT TO:" then "550 5.1.1 …"); dma's own reasons carry no code.
const INTRO = /^This is the DragonFly Mail Agent\b/m;
const RECIPIENT = /^There was an error delivering your mail to <([^\s<>]+)>\.[ \t]*$/m;
const COPY = [/^(?:Message headers follow|Original message follows)\.[ \t]*$/m];
// dma bounces "DNS lookup failure: host <domain> not found" only when the lookup failed for good
// (a temporary failure is retried, and bounced as "Could not deliver for the last … seconds").
const HOST_NOT_FOUND = /^DNS lookup failure: host (\S{1,253}) not found[ \t]*$/m;

export const dragonfly: ReportFormat = {
  name: 'dragonfly',
  read(message) {
    if (!INTRO.test(message.text)) return null;
    const { head, end } = beforeCopy(message.text, COPY);
    const named = RECIPIENT.exec(head);
    const address = named?.[1];
    if (!named || !address) return null;
    const reason = head.slice(named.index + named[0].length).trim();
    const status = recipientDomainNotFound(reason, address) ? { status: '5.1.2' } : {};
    const recipient = textRecipient(address, reason, { action: 'failed', permanent: true, ...status });
    return { kind: 'dsn', recipients: [recipient], original: findOriginal(message, end), format: 'dragonfly' };
  },
};

/**
 * True when dma found that the recipient's own domain does not resolve (5.1.2, a domain that does
 * not exist). With a smarthost configured dma names the smarthost instead: a fault of its own
 * set-up, not of the address, so that is left to the words (which give no code).
 */
function recipientDomainNotFound(reason: string, address: string): boolean {
  const host = HOST_NOT_FOUND.exec(reason)?.[1]?.replace(/\.$/, '').toLowerCase();
  return host !== undefined && host === address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}
