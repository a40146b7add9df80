import { isUtf8 } from 'node:buffer';

// Windows-1252's characters at 0x80–0x9F (WHATWG Encoding Standard, index-windows-1252); its
// other bytes are ISO-8859-1's, the code point of the same number. Node's TextDecoder (20.x)
// drops these bytes, so the table is here.
const WINDOWS_1252_C1 = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';

// One well-formed UTF-8 character of two to four bytes (RFC 3629 §4), in a binary string.
const UTF8_MULTIBYTE =
  /[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}|\xf4[\x80-\x8f][\x80-\xbf]{2}/;

/**
 * A header's raw bytes (a binary string, one char per byte) as text. RFC 6532 has 8-bit header
 * bytes be UTF-8, and they are read so; but mailers from before it (old Outlook, Eudora, scripts
 * with a Latin-1 locale) wrote their own charset undeclared, nearly always Windows-1252 or its
 * subset ISO-8859-1. Read as UTF-8 that came out as U+FFFD (`Caf� crème`), so a field with no
 * UTF-8 character in it is read as Windows-1252, as WHATWG's decoding and Thunderbird's fallback
 * do. A field that has UTF-8 characters and also bytes that are not (a relay cut a character
 * short, a stray byte) is UTF-8 that was damaged: it is read as UTF-8 with U+FFFD for each
 * ill-formed sequence (WHATWG's UTF-8 decoder, and Python's), so the rest of it stays readable
 * rather than turning into Windows-1252 mojibake (`GrÃ¼ÃŸe`).
 */
export function headerBytesText(binary: string): string {
  const bytes = Buffer.from(binary, 'binary');
  if (isUtf8(bytes) || UTF8_MULTIBYTE.test(binary)) return bytes.toString('utf8');
  return windows1252Text(bytes);
}

// The UTF-16 code unit of each Windows-1252 byte.
const WINDOWS_1252 = Uint16Array.from({ length: 256 }, (_, byte) => (byte >= 0x80 && byte <= 0x9f ? WINDOWS_1252_C1.charCodeAt(byte - 0x80) : byte));

/**
 * Bytes read as Windows-1252 (WHATWG's index-windows-1252: 0x80–0x9F as its table says, every
 * other byte the code point of its number). Written as UTF-16LE and read back, as a body can be
 * 25 MB: that takes about 160 ms there, a replace() of each C1 byte 290 ms.
 */
export function windows1252Text(bytes: Buffer): string {
  const units = Buffer.allocUnsafe(bytes.length * 2);
  for (let i = 0; i < bytes.length; i += 1) {
    const unit = WINDOWS_1252[bytes[i] as number] as number;
    units[2 * i] = unit & 0xff;
    units[2 * i + 1] = unit >>> 8;
  }
  return units.toString('utf16le');
}

/** Whether a header's raw bytes are 8-bit and not UTF-8 (headerBytesText reads them as Windows-1252, or as UTF-8 with U+FFFD). */
export function hasNonUtf8Bytes(binary: string): boolean {
  return /[\x80-\xff]/.test(binary) && !isUtf8(Buffer.from(binary, 'binary'));
}

// A line break and the white space after it, where the bytes before it begin a UTF-8 character
// and the byte after it continues one: no UTF-8 text has a continuation byte after white space.
const FOLD_IN_CHARACTER = /(?<=[\xc2-\xf4][\x80-\xbf]{0,2})\r?\n[ \t]+(?=[\x80-\xbf])/g;

/**
 * A raw header (a binary string) without the folds that a mailer put inside a UTF-8 character.
 * RFC 5322 §2.2.3 folds only where there is white space, so unfolding keeps it; a generator that
 * folds raw UTF-8 by byte count inserts `CRLF SP` between a character's bytes, and unfolding
 * then leaves a space inside the character (`Gr\xC3 \xBCße`), which is no UTF-8 at all. Such a
 * fold and the white space after it are taken out; every other fold is left as it is.
 */
export function withoutFoldsInCharacters(binary: string): string {
  return binary.replace(FOLD_IN_CHARACTER, '');
}
