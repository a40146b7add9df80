import { isUtf8 } from 'node:buffer';

// Windows-1252's characters at 0x80–0x9F (WHATWG Encoding Standard, index-windows-1252); its
// other bytes are ISO-8859-1's, the code point of the same number. Node's TextDecoder (20.x)
// drops these bytes, so the table is here.
const WINDOWS_1252_C1 = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';

/**
 * A header's raw bytes (a binary string, one char per byte) as text. RFC 6532 has 8-bit header
 * bytes be UTF-8, and they are read so; but mailers from before it (old Outlook, Eudora, scripts
 * with a Latin-1 locale) wrote their own charset undeclared, nearly always Windows-1252 or its
 * subset ISO-8859-1. Read as UTF-8 that came out as U+FFFD (`Caf� crème`), so a field that is
 * not valid UTF-8 is read as Windows-1252, as WHATWG's decoding and Thunderbird's fallback do.
 */
export function headerBytesText(binary: string): string {
  const bytes = Buffer.from(binary, 'binary');
  if (isUtf8(bytes)) return bytes.toString('utf8');
  let text = '';
  for (const byte of bytes) text += byte >= 0x80 && byte <= 0x9f ? WINDOWS_1252_C1[byte - 0x80] : String.fromCharCode(byte);
  return text;
}

/** Whether a header's raw bytes are 8-bit and not UTF-8 (headerBytesText reads them as Windows-1252). */
export function hasNonUtf8Bytes(binary: string): boolean {
  return /[\x80-\xff]/.test(binary) && !isUtf8(Buffer.from(binary, 'binary'));
}
