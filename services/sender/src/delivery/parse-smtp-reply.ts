import type { SmtpReply } from './outcome';

// "550", "550-" or "550 " at the start of each line of a (multi-line) reply.
const REPLY_CODE = /^(\d{3})(?:[ -]|$)/;
// class.subject.detail (RFC 3463 §2), right after the reply code.
const ENHANCED_CODE = /^([245]\.\d{1,3}\.\d{1,3})(?=\s|$)/;

/**
 * Splits a server reply such as `550 5.1.1 <a@x>: user unknown` (or a multi-line one) into
 * code, enhanced code and text. Tolerates text without a code: `code` is then null.
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
  return { code, enhancedCode, message: parts.join(' ') };
}
