import { isUtf8 } from 'node:buffer';

// Charset labels real mail carries that neither libmime's alias table nor iconv-lite (what
// mailparser decodes with) knows, each to a name they do know. Without this a body or an encoded
// word so labelled is read as UTF-8 and comes out as U+FFFD.
const LABELS: ReadonlyMap<string, string> = new Map([
  // Labels of the WHATWG Encoding Standard (encoding.spec.whatwg.org, "Names and labels").
  // Its x-mac-cyrillic is Apple's Ukrainian variant (Ґ at 0xA2): iconv-lite's macukraine, which
  // differs from it in one byte only (0xFF: ¤ where the standard has €).
  ['x-mac-cyrillic', 'macukraine'],
  ['x-mac-ukrainian', 'macukraine'],
  ['csiso88598i', 'iso-8859-8'],
  ['logical', 'iso-8859-8'],
  ['csiso2022jp', 'iso-2022-jp'],
  ['unicode20utf8', 'utf-8'],
  ['x-unicode20utf8', 'utf-8'],
  ['unicodefffe', 'utf-16be'],
  ['csunicode', 'utf-16le'],
  ['iso-10646-ucs-2', 'utf-16le'],
  ['unicode', 'utf-16le'],
  ['unicodefeff', 'utf-16le'],
  // Microsoft's names (.NET, Outlook: Mac code pages 10029, 10006, 10081, 10079, 10082, 10010,
  // 10021), Java's (x-windows-949, x-windows-950) and older mailers' (x-big5), for encodings
  // iconv-lite has under another name.
  ['x-mac-ce', 'maccenteuro'],
  ['x-mac-greek', 'macgreek'],
  ['x-mac-turkish', 'macturkish'],
  ['x-mac-icelandic', 'maciceland'],
  ['x-mac-croatian', 'maccroatian'],
  ['x-mac-romanian', 'macromania'],
  ['x-mac-thai', 'macthai'],
  ['x-big5', 'big5'],
  ['x-windows-949', 'cp949'],
  ['x-windows-950', 'cp950'],
]);

/** The charset name mailparser and libmime should decode a part or encoded word labelled `label` with: the label itself unless LABELS knows it. */
export function charsetName(label: string): string {
  return LABELS.get(label.trim().toLowerCase()) ?? label;
}

// The charset label of an RFC 2047 encoded word ("=?label?B?…?=", "=?label*lang?Q?…?="), and
// that of an RFC 2231 parameter value ("filename*=label'lang'…", "filename*0*=label'…").
const WORD_CHARSET = /(=\?)([^?*\s]+)(?=(?:\*[^?]*)?\?[BbQq]\?)/g;
const PARAMETER_CHARSET = /(\*(?:0\*)?=\s*"?)([^'"\s;]+)(?=')/g;

// Labels that say the word's charset is unknown: RFC 1428's `unknown-8bit` and Pine's `x-unknown`.
// libmime reads them as UTF-8, so Latin-1 in them came out as U+FFFD.
const UNKNOWN_LABELS = new Set(['unknown-8bit', 'x-unknown']);
// A whole encoded word: label, language, encoding, encoded text.
const WORD = /=\?([^?*\s]+)(?:\*[^?]*)?\?([BbQq])\?([^?]*)\?=/g;

/** Whether a header value has an encoded word whose charset label is one of LABELS or UNKNOWN_LABELS. */
export function hasRelabelledWord(value: string): boolean {
  return value.includes('=?') && (relabels(value, WORD_CHARSET, LABELS) || relabels(value, WORD_CHARSET, UNKNOWN_LABELS));
}

/**
 * A header value with the charset labels of its encoded words replaced by charsetName's, and
 * those of UNKNOWN_LABELS by the charset undeclared bytes are read in (undeclared-charset's rule,
 * judged on all such words of the value together, so adjacent ones still join): `utf-8` when
 * their bytes are valid UTF-8, else `windows-1252`.
 */
export function withKnownCharsets(value: string): string {
  if (!value.includes('=?')) return value;
  const known = relabel(value, WORD_CHARSET, charsetName);
  if (!relabels(known, WORD_CHARSET, UNKNOWN_LABELS)) return known;
  const charset = unknownWordsCharset(known);
  return relabel(known, WORD_CHARSET, (label) => (UNKNOWN_LABELS.has(label.toLowerCase()) ? charset : label));
}

/** The charset of a value's encoded words labelled as unknown: utf-8 when their bytes together are valid UTF-8, else windows-1252. */
function unknownWordsCharset(value: string): string {
  const bytes: Buffer[] = [];
  for (const [, label = '', encoding = '', text = ''] of value.matchAll(WORD)) {
    if (!UNKNOWN_LABELS.has(label.toLowerCase())) continue;
    if (encoding.toUpperCase() === 'B') bytes.push(Buffer.from(text, 'base64'));
    else bytes.push(Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))), 'latin1'));
  }
  return isUtf8(Buffer.concat(bytes)) ? 'utf-8' : 'windows-1252';
}

/** Whether a parameterised header value (Content-Type, Content-Disposition) has an encoded word or RFC 2231 value whose charset label is one of LABELS. */
export function hasRelabelledParameter(value: string): boolean {
  return hasRelabelledWord(value) || relabels(value, PARAMETER_CHARSET, LABELS);
}

/** A parameterised header value with the charset labels of its encoded words and RFC 2231 values replaced by charsetName's. */
export function withKnownParameterCharsets(value: string): string {
  return relabel(withKnownCharsets(value), PARAMETER_CHARSET, charsetName);
}

function relabels(value: string, pattern: RegExp, labels: { has(label: string): boolean }): boolean {
  for (const match of value.matchAll(pattern)) if (labels.has((match[2] as string).toLowerCase())) return true;
  return false;
}

function relabel(value: string, pattern: RegExp, rename: (label: string) => string): string {
  return value.replace(pattern, (found: string, start: string, label: string) => {
    const name = rename(label);
    return name === label ? found : `${start}${name}`;
  });
}
