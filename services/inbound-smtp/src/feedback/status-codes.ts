import { enhancedFromBasic, permanentStatusFromText } from '@mailroom/core';

// Finding a status code in free text. The rules, in order:
// 1. An enhanced status code (RFC 3463, `5.1.1`, also `#5.1.1` and `(#5.1.1)`) in the text is
//    taken as written: the first one, not preceded or followed by more dotted digits (an IP).
// 2. Otherwise a basic SMTP reply code (`550 User unknown`) is mapped by its text, as the sender
//    maps an SMTP reply without an enhanced code (`enhancedFromBasic` in @mailroom/core).
// 3. Otherwise, only when the report itself says the failure is permanent, a "no such user" text
//    → 5.1.1, a disabled mailbox → 5.2.1 and a "mailbox full" text → 5.2.2 (`permanentStatusFromText`
//    in @mailroom/core); anything else stays null (never a guessed code).

const ENHANCED = /(?<![\w.])([245])\.(\d{1,3})\.(\d{1,3})(?!\w|\.\d)/;
// A reply code where SMTP replies are quoted: at a line's start, after `said:`, `smtp;`, `#`, a quote.
const BASIC = /(?:^|[\n'"#;:(]|said:?|error:?|returned|response(?: was)?:?|reply:?)[ \t]*([245][0-5]\d)(?=[ \t-]|:|$)/im;

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

/** Rules 1–3 above. `permanent` is true when the report says the failure is permanent. */
export function statusFromText(text: string, options: { permanent?: boolean } = {}): string | null {
  const enhanced = findEnhancedCode(text);
  if (enhanced) return enhanced;
  const basic = findBasicCode(text);
  if (basic !== null) return enhancedFromBasic(basic, text);
  return options.permanent ? permanentStatusFromText(text) : null;
}

/** The action a status implies when a report gives none. */
export function actionFromStatus(status: string | null): 'failed' | 'delayed' | 'delivered' {
  if (status?.startsWith('2.')) return 'delivered';
  if (status?.startsWith('4.')) return 'delayed';
  return 'failed';
}
