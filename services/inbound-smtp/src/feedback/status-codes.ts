// Finding a status code in free text. The rules, in order:
// 1. An enhanced status code (RFC 3463, `5.1.1`, also `#5.1.1` and `(#5.1.1)`) in the text is
//    taken as written: the first one, not preceded or followed by more dotted digits (an IP).
// 2. Otherwise a basic SMTP reply code (`550 User unknown`) is mapped conservatively:
//    5xx with a "no such user" text → 5.1.1; 5xx with a "mailbox full" text → 5.2.2; 5xx with a
//    spam/block/policy text → 5.7.1; any other 5xx → 5.0.0; 4xx with "mailbox full" → 4.2.2;
//    other 4xx → 4.0.0; 2xx → 2.0.0.
// 3. Otherwise, only when the report itself says the failure is permanent, a "no such user" text
//    → 5.1.1 and a "mailbox full" text → 5.2.2; anything else stays null (never a guessed code).

const ENHANCED = /(?<![\w.])([245])\.(\d{1,3})\.(\d{1,3})(?!\w|\.\d)/;
// A reply code where SMTP replies are quoted: at a line's start, after `said:`, `smtp;`, `#`, a quote.
const BASIC = /(?:^|[\n'"#;:(]|said:?|error:?|returned|response(?: was)?:?|reply:?)[ \t]*([245][0-5]\d)(?=[ \t-]|:|$)/im;

const NO_SUCH_USER =
  /user unknown|unknown user|unknown recipient|no such (?:user|mailbox|recipient|account)|does ?n[o']t exist|mailbox unavailable|mailbox not found|recipient not found|user not found|invalid recipient|no mailbox here by that name|not listed in (?:domino directory|public name)|doesn't have an? [\w.-]+ account|address couldn't be found|account that you tried to reach does not exist/i;
const MAILBOX_FULL = /mailbox (?:is )?full|over quota|quota exceeded|exceeded (?:storage|quota)|insufficient (?:system )?storage|mail ?file is full/i;
const POLICY = /spam|blocked|black ?list|block ?list|blacklisted|policy|reputation|dmarc|not authorized|access denied/i;

/** The first enhanced status code in the text, if any. */
export function findEnhancedCode(text: string): string | null {
  const m = ENHANCED.exec(text);
  return m ? `${m[1]}.${Number(m[2])}.${Number(m[3])}` : null;
}

/** The first basic SMTP reply code quoted in the text, if any. */
export function findBasicCode(text: string): number | null {
  const m = BASIC.exec(text);
  return m?.[1] ? Number(m[1]) : null;
}

/** Rule 2 above: an enhanced code for a basic reply code and its text. */
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

/** Rules 1–3 above. `permanent` is true when the report says the failure is permanent. */
export function statusFromText(text: string, options: { permanent?: boolean } = {}): string | null {
  const enhanced = findEnhancedCode(text);
  if (enhanced) return enhanced;
  const basic = findBasicCode(text);
  if (basic !== null) return enhancedFromBasic(basic, text);
  if (options.permanent && NO_SUCH_USER.test(text)) return '5.1.1';
  if (options.permanent && MAILBOX_FULL.test(text)) return '5.2.2';
  return null;
}

/** The action a status implies when a report gives none. */
export function actionFromStatus(status: string | null): 'failed' | 'delayed' | 'delivered' {
  if (status?.startsWith('2.')) return 'delivered';
  if (status?.startsWith('4.')) return 'delayed';
  return 'failed';
}
