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

/** Whether a header value has an encoded word whose charset label is one of LABELS. */
export function hasRelabelledWord(value: string): boolean {
  return value.includes('=?') && relabels(value, WORD_CHARSET);
}

/** A header value with the charset labels of its encoded words replaced by charsetName's. */
export function withKnownCharsets(value: string): string {
  return value.includes('=?') ? relabel(value, WORD_CHARSET) : value;
}

/** Whether a parameterised header value (Content-Type, Content-Disposition) has an encoded word or RFC 2231 value whose charset label is one of LABELS. */
export function hasRelabelledParameter(value: string): boolean {
  return hasRelabelledWord(value) || relabels(value, PARAMETER_CHARSET);
}

/** A parameterised header value with the charset labels of its encoded words and RFC 2231 values replaced by charsetName's. */
export function withKnownParameterCharsets(value: string): string {
  return relabel(withKnownCharsets(value), PARAMETER_CHARSET);
}

function relabels(value: string, pattern: RegExp): boolean {
  for (const match of value.matchAll(pattern)) if (LABELS.has((match[2] as string).toLowerCase())) return true;
  return false;
}

function relabel(value: string, pattern: RegExp): string {
  return value.replace(pattern, (found: string, start: string, label: string) => {
    const name = charsetName(label);
    return name === label ? found : `${start}${name}`;
  });
}
