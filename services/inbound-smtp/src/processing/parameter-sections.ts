// RFC 2231 §4.1: in a parameter split into sections, only the sections marked `*N*=` are
// percent-encoded; a section written `*N=` is literal, so `filename*0*=utf-8''50%25;
// filename*1="%20off.txt"` is `50%%20off.txt`. libmime (mailsplit's and mailparser's reader)
// percent-decodes every section once the first is encoded, and read `50% off.txt`.

// A section of an RFC 2231 parameter after the first: `; name*N=value` (literal) or `; name*N*=value`
// (percent-encoded), the value a token or a quoted string.
const SECTION = /(;\s*)([^\s=;*"]+)\*([1-9]\d*)(\*?)(\s*=\s*)("(?:[^"\\]|\\.)*"|[^;\s"]*)/g;
// The first section of a parameter, percent-encoded: `name*0*=`.
const EXTENDED_FIRST = /(?:^|;)\s*([^\s=;*"]+)\*0\*\s*=/g;

/** Whether a Content-Type or Content-Disposition value has a literal section in a parameter whose first section is encoded. */
export function hasLiteralSection(value: string): boolean {
  if (!value.includes('*0*')) return false;
  const encoded = encodedNames(value);
  for (const match of value.matchAll(SECTION)) if (match[4] === '' && encoded.has((match[2] as string).toLowerCase())) return true;
  return false;
}

/**
 * The value with the literal sections of each parameter whose first section is encoded written as
 * encoded sections of the same text (`filename*1="%20off.txt"` as `filename*1*=%2520off.txt`),
 * which libmime then reads as RFC 2231 says.
 */
export function withLiteralSectionsEncoded(value: string): string {
  const encoded = encodedNames(value);
  return value.replace(SECTION, (found, start: string, name: string, index: string, star: string, _equals: string, written: string) => {
    if (star !== '' || !encoded.has(name.toLowerCase())) return found;
    const literal = written.startsWith('"') ? written.slice(1, -1).replace(/\\(.)/g, '$1') : written;
    return `${start}${name}*${index}*=${percentEncoded(literal)}`;
  });
}

function encodedNames(value: string): Set<string> {
  return new Set([...value.matchAll(EXTENDED_FIRST)].map((m) => (m[1] as string).toLowerCase()));
}

/** RFC 2231's attribute-char stay, everything else of ASCII is %XX; other characters are left for the charset to read. */
function percentEncoded(text: string): string {
  return text.replace(/[^A-Za-z0-9!#$&+\-.^_`|~\u0080-\uffff]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}
