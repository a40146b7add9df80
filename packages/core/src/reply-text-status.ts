// What a failure's text says when it carries no enhanced status code (RFC 3463): the one reading
// of reply texts for the sender's SMTP replies and for bounce reports received by mail, so that
// "550 No such user here" suppresses the address (5.1.1) whichever way it reached us.
//
// These texts come from hostile peers: every pattern is an alternation of literals with at most a
// bounded run of one character class between them, so matching stays linear in the text's length.

// About our side of the exchange, not the recipient: our sender address or domain (Exim's "Sender
// verify failed", which quotes the "No Such User Here" our sender got; GMX's "mailbox unavailable /
// Sender address is not allowed"), our IP, host name or DNS ("invalid DNS MX or A/AAAA resource
// record", PTR, HELO), or a refusal to relay for us (Postfix's "Relay access denied", qmail's
// rcpthosts, Courier's "Relaying denied"). Read first, so such a text never suppresses the recipient.
const ABOUT_OUR_SIDE =
  /sender verify|verification failed for|sender address|sender domain|unknown sender|envelope sender|relay(?:ing)? (?:access )?(?:denied|disallowed|not permitted|not allowed|prohibited|refused)|(?:not permitted|not allowed|unable) to relay|rcpthosts|invalid dns|reverse dns|\brdns\b|\bptr\b|\bhelo\b|\behlo\b|client host|your (?:ip|domain|server|host|mail server|account)|\bsender (?:is )?(?:rejected|refused|blocked)/i;
// The recipient does not exist, said plainly. Lotus Domino's "not listed in Domino Directory" also
// in its Japanese form, "… は Domino ディレクトリには見つかりません" (is not found in the Domino Directory).
const NO_SUCH_USER =
  /(?:user|recipient|mailbox|addressee) (?:is )?unknown|unknown (?:user|recipient|mailbox|addressee|local[- ]?part)|no such (?:user|mailbox|recipient|account|address)|(?:user|mailbox|recipient|address|account|addressee)\b[^;]{0,80}\bdoes ?n[o']t exist|>:? does ?n[o']t exist|\.[a-z]{2,24} does ?n[o']t exist|(?:mailbox|recipient|user|address) not found|invalid (?:recipient|mailbox)|no mailbox here by that name|not listed in (?:domino directory|public name)|domino ?ディレクトリには見つかりません|doesn't have an? [\w.-]+ account|address couldn't be found/i;
// The recipient's mailbox or account is disabled (RFC 3463 X.2.1, which may be enabled again): Gmail's "account … is
// disabled", Yahoo's "This mailbox is disabled" and "disabled or discontinued", "This account is inactive".
const MAILBOX_DISABLED =
  /(?:mailbox|account|user|address|recipient)\b[^;]{0,40}\b(?:disabled|deactivated|inactive|discontinued|closed|no longer (?:active|in use))/i;
const MAILBOX_FULL =
  /mailbox (?:is )?full|full mailbox|over ?quota|quota exceeded|exceeded (?:storage|quota)|exceeds? (?:its |the |their )?(?:storage |mailbox )?quota|insufficient (?:system )?storage|out of storage|mailbox size limit|mail ?file is full/i;
// The message is too big (RFC 3463 X.3.4).
const MESSAGE_TOO_BIG =
  /message (?:is )?too (?:big|large)|message size (?:exceeds|too|limit)|(?:exceeds|exceeded) (?:the |our |my )?(?:fixed |maximum |max )?(?:maximum )?(?:message )?size|databytes|too much mail data|message length exceeds/i;
const POLICY =
  /spam|blocked|black ?list|block ?list|polic(?:y|ies)|reputation|dmarc|\bspf\b|dkim|unauthenticated|not authorized|denied|prohibited|banned|listed (?:at|on|in|by)|dnsbl|\brbl\b|unsolicited|virus|malware|infected|phishing|rate ?limit|throttl|too many (?:recipients|messages|connections|e?mails)\b|recipient'?s? preferences|\baup\b/i;
// Weaker words for a missing recipient, read only when nothing above matched: RFC 5321's own "550
// Requested action not taken: mailbox unavailable" (GMX, Web.de and old Hotmail for no such
// user), Exim's "Unrouteable address" (no router accepts it: for a local domain, no such user),
// Postfix's "Recipient address rejected: undeliverable address" (its probe of the address bounced).
const WEAK_NO_SUCH_USER = /mailbox unavailable|undeliverable address|unrout(?:e)?able address/i;
// An enhanced code after the text, as qmail writes it: "sorry, no mailbox here by that name. (#5.1.1)".
const TRAILING_ENHANCED = /\(#([245])\.(\d{1,3})\.(\d{1,3})\)/;

type TextReading = 'our-side' | 'no-such-user' | 'disabled' | 'full' | 'too-big' | 'policy' | 'weak-no-such-user';

function readText(text: string): TextReading | null {
  if (ABOUT_OUR_SIDE.test(text)) return 'our-side';
  if (NO_SUCH_USER.test(text)) return 'no-such-user';
  if (MAILBOX_DISABLED.test(text)) return 'disabled';
  if (MAILBOX_FULL.test(text)) return 'full';
  if (MESSAGE_TOO_BIG.test(text)) return 'too-big';
  if (POLICY.test(text)) return 'policy';
  if (WEAK_NO_SUCH_USER.test(text)) return 'weak-no-such-user';
  return null;
}

const PERMANENT_BY_READING: Record<TextReading, string> = {
  'our-side': '5.7.1',
  'no-such-user': '5.1.1',
  disabled: '5.2.1',
  full: '5.2.2',
  'too-big': '5.3.4',
  policy: '5.7.1',
  'weak-no-such-user': '5.1.1',
};

/**
 * An enhanced status code for a basic reply code and its text, conservatively. A qmail-style
 * "(#5.1.1)" in the text of the same class is taken as written. Otherwise, for a 5xx, in this
 * order: a text about our side (sender address or domain, our IP or DNS, HELO, a relay refusal)
 * → 5.7.1; "no such user" → 5.1.1; a disabled or inactive mailbox → 5.2.1; "mailbox full" →
 * 5.2.2; "message too big" → 5.3.4; spam, block or policy → 5.7.1; "mailbox unavailable",
 * "unrouteable address", "undeliverable address" → 5.1.1; anything else → 5.0.0. A 4xx with
 * "mailbox full" → 4.2.2; other 4xx → 4.0.0; 2xx → 2.0.0.
 */
export function enhancedFromBasic(code: number, text: string): string {
  const klass = Math.floor(code / 100);
  const trailing = TRAILING_ENHANCED.exec(text);
  if (trailing && Number(trailing[1]) === klass) return `${trailing[1]}.${Number(trailing[2])}.${Number(trailing[3])}`;
  if (klass === 5) {
    const reading = readText(text);
    return reading ? PERMANENT_BY_READING[reading] : '5.0.0';
  }
  if (klass === 4) return MAILBOX_FULL.test(text) ? '4.2.2' : '4.0.0';
  return '2.0.0';
}

/**
 * For a failure known to be permanent but given with no code at all: 5.1.1 (no such user), 5.2.1
 * (disabled) or 5.2.2 (mailbox full) by its text, else null (never a guess; a text about our side
 * or a policy is never read as a missing recipient).
 */
export function permanentStatusFromText(text: string): string | null {
  switch (readText(text)) {
    case 'no-such-user':
    case 'weak-no-such-user':
      return '5.1.1';
    case 'disabled':
      return '5.2.1';
    case 'full':
      return '5.2.2';
    default:
      return null;
  }
}

/**
 * Whether a failure's text says the address exists but something other than its existence failed,
 * without saying plainly that the recipient does not exist: our side or a policy (sender, IP, DNS,
 * relay, spam, block lists, SPF, rate limits, the recipient's preferences), a full or disabled
 * mailbox, or a message too big. Peers put 5.1.x codes on such refusals too (5.1.0 for an SPF
 * failure, 5.1.1 for "sent to too many recipients this hour", qmail's "mailbox is over quota
 * temporarily (#5.1.1)"), so such a text vetoes the suppression a 5.1.x code would bring
 * (bounceSuppressesAddress).
 */
export function textContradictsMissingRecipient(text: string): boolean {
  const reading = readText(text);
  return reading !== null && reading !== 'no-such-user' && reading !== 'weak-no-such-user';
}

/**
 * The enhanced status code a reply is classified by: the one it carries, as written (DESIGN §4
 * suppresses only for 5.1.x and never for policy codes, whatever the words), else the one its
 * basic code and text give (`enhancedFromBasic`). Null when the reply has neither.
 */
export function replyStatus(code: number | null, enhancedCode: string | null, text: string): string | null {
  if (enhancedCode !== null) return enhancedCode;
  return code !== null ? enhancedFromBasic(code, text) : null;
}
