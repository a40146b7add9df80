import type { SmtpReply } from './outcome';

// "550", "550-" or "550 " at the start of each line of a (multi-line) reply.
const REPLY_CODE = /^(\d{3})(?:[ -]|$)/;
// class.subject.detail (RFC 3463 §2), right after the reply code.
const ENHANCED_CODE = /^([245]\.\d{1,3}\.\d{1,3})(?=\s|$)/;
// Reply text kept, in characters: a reply line is at most 512 octets (RFC 5321 §4.5.3.1.5), but a
// peer may send up to nodemailer's 1 MB, which would otherwise go into every event and webhook body.
const MAX_MESSAGE_CHARS = 1000;

/**
 * Splits a server reply such as `550 5.1.1 <a@x>: user unknown` (or a multi-line one) into
 * code, enhanced code and text (its first MAX_MESSAGE_CHARS characters). Tolerates text without
 * a code: `code` is then null.
 */
export function parseSmtpReply(text: string): SmtpReply {
  let code: number | null = null;
  let enhancedCode: string | null = null;
  const parts: string[] = [];
  for (const rawLine of text.split(/\r?\n/)) {
    let line = rawLine.trim();
    if (!line) continue;
    const codeMatch = REPLY_CODE.exec(line);
    if (codeMatch) {
      code ??= Number(codeMatch[1]);
      line = line.slice(codeMatch[0].length).trimStart();
    }
    // Every line of a multi-line reply repeats the enhanced code; keep it once.
    const enhancedMatch = ENHANCED_CODE.exec(line);
    if (enhancedMatch) {
      enhancedCode ??= enhancedMatch[1] ?? null;
      line = line.slice(enhancedMatch[0].length).trimStart();
    }
    if (line) parts.push(line);
  }
  const message = parts.join(' ');
  return { code, enhancedCode, message: message.length > MAX_MESSAGE_CHARS ? message.slice(0, MAX_MESSAGE_CHARS) : message };
}
