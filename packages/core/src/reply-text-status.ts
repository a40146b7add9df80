// What a failure's text says when it carries no enhanced status code (RFC 3463): the one reading
// of reply texts for the sender's SMTP replies and for bounce reports received by mail, so that
// "550 No such user here" suppresses the address (5.1.1) whichever way it reached us.

const NO_SUCH_USER =
  /user unknown|unknown user|unknown recipient|no such (?:user|mailbox|recipient|account)|does ?n[o']t exist|mailbox unavailable|mailbox not found|recipient not found|user not found|invalid recipient|no mailbox here by that name|not listed in (?:domino directory|public name)|doesn't have an? [\w.-]+ account|address couldn't be found|account that you tried to reach does not exist/i;
const MAILBOX_FULL = /mailbox (?:is )?full|over quota|quota exceeded|exceeded (?:storage|quota)|insufficient (?:system )?storage|mail ?file is full/i;
const POLICY = /spam|blocked|black ?list|block ?list|blacklisted|policy|reputation|dmarc|not authorized|access denied/i;

/**
 * An enhanced status code for a basic reply code and its text, conservatively: 5xx with a "no
 * such user" text → 5.1.1; with a "mailbox full" text → 5.2.2; with a spam, block or policy
 * text → 5.7.1; any other 5xx → 5.0.0; 4xx with "mailbox full" → 4.2.2; other 4xx → 4.0.0;
 * 2xx → 2.0.0.
 */
export function enhancedFromBasic(code: number, text: string): string {
  const klass = Math.floor(code / 100);
  if (klass === 5) {
    if (NO_SUCH_USER.test(text)) return '5.1.1';
    if (MAILBOX_FULL.test(text)) return '5.2.2';
    if (POLICY.test(text)) return '5.7.1';
    return '5.0.0';
  }
  if (klass === 4) return MAILBOX_FULL.test(text) ? '4.2.2' : '4.0.0';
  return '2.0.0';
}

/** For a failure known to be permanent but given with no code at all: 5.1.1 or 5.2.2 by its text, else null (never a guess). */
export function permanentStatusFromText(text: string): string | null {
  if (NO_SUCH_USER.test(text)) return '5.1.1';
  if (MAILBOX_FULL.test(text)) return '5.2.2';
  return null;
}
