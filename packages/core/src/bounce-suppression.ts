import { textContradictsMissingRecipient } from './reply-text-status';

// Enhanced codes whose subject is addressing (X.1.*) but whose detail is about the sender:
// 5.1.7 bad sender mailbox syntax, 5.1.8 bad sender's system address (RFC 3463).
const SENDER_ADDRESS_DETAILS = new Set(['7', '8']);

/**
 * Whether a bounce with this enhanced status code and text suppresses the recipient's address
 * (DESIGN §4): only 5.1.x, "no such mailbox or domain", except 5.1.7 and 5.1.8, which are about
 * our sender address, not the recipient, and except when the text says something else failed
 * (`textContradictsMissingRecipient`: our side, a policy — "never for policy or content
 * rejections", whatever code a peer put on one — a full or disabled mailbox, a message too big),
 * or when a code read from words answered DATA (`ReplyPhase`). Policy (5.7.x), mailbox full or
 * disabled (5.2.x) and everything else never suppress. The one rule for the sender's SMTP
 * replies and for bounce reports received by mail; a reply or report without an enhanced code is
 * read by its text first (`enhancedFromBasic`).
 */
export function bounceSuppressesAddress(enhancedCode: string | null, text: string, reply: ReplyPhase = {}): boolean {
  if (reply.answeredData && reply.codeFromWords) return false;
  const match = /^5\.1\.(\d{1,3})$/.exec(enhancedCode?.trim() ?? '');
  return match !== null && !SENDER_ADDRESS_DETAILS.has(String(Number(match[1]))) && !textContradictsMissingRecipient(text);
}

/** What is known of the reply a bounce quotes, beyond its code and text. */
export interface ReplyPhase {
  /**
   * It answered DATA or the message's end, so the server had accepted the recipient at RCPT TO.
   * A "no such user" read from its words alone then does not suppress: NTT docomo's filter
   * answers a message it refuses with "550 Unknown user …" there, for a mailbox that exists. An
   * enhanced code written in the reply (a gateway's "550 5.1.1 … (in reply to end of DATA
   * command)") is taken as written.
   */
  answeredData?: boolean;
  /** The 5.1.x was read from the reply's words (`enhancedFromBasic`), not written in it. */
  codeFromWords?: boolean;
}
