import { saysMailboxDisabled } from './reply-text-status';

// Enhanced codes whose subject is addressing (X.1.*) but whose detail is about the sender:
// 5.1.7 bad sender mailbox syntax, 5.1.8 bad sender's system address (RFC 3463).
const SENDER_ADDRESS_DETAILS = new Set(['7', '8']);

/**
 * Whether a bounce with this enhanced status code suppresses the recipient's address (DESIGN §4):
 * 5.1.x, "no such mailbox or domain", except 5.1.7 and 5.1.8, which are about our sender
 * address, not the recipient. Policy (5.7.x), mailbox full (5.2.2) and everything else never
 * suppress. The one rule for the sender's SMTP replies and for bounce reports received by mail.
 *
 * Given the reply's text, 5.2.1 ("mailbox disabled", RFC 3463) also suppresses when the text says
 * the recipient's mailbox or account is disabled, deactivated or inactive (Gmail's "The email
 * account that you tried to reach is disabled"): a 5.2.1 alone does not, as Gmail also sends it
 * for "receiving mail at a rate that prevents additional messages" and AOL for a policy refusal.
 */
export function bounceSuppressesAddress(enhancedCode: string | null, text?: string): boolean {
  const code = enhancedCode?.trim() ?? '';
  const match = /^5\.1\.(\d{1,3})$/.exec(code);
  if (match) return !SENDER_ADDRESS_DETAILS.has(String(Number(match[1])));
  return text !== undefined && /^5\.2\.0{0,2}1$/.test(code) && saysMailboxDisabled(text);
}
