/**
 * The tag=value lists of DKIM (RFC 6376 §3.2), parsed as the ABNF there defines them: tag names
 * are case-sensitive, a value has no `;` and only folding whitespace between its parts, and a
 * name given twice makes the whole list invalid.
 */

/** The tags in the order written, or why the text is not a tag list. */
export type TagList = { ok: true; tags: Array<[name: string, value: string]> } | { ok: false; reason: string };

// One unit of FWS: a space or tab, or a CRLF before one (RFC 5322 FWS as RFC 6376 §2.8 uses it).
// Matched unit by unit, so no run of whitespace can be split in two ways (no backtracking blow-up).
const LWS = '(?:[ \\t]|\\r\\n[ \\t])';
// VALCHAR: %x21-3A / %x3C-7E, printable ASCII but ";".
const TVAL = '[\\x21-\\x3a\\x3c-\\x7e]+';
const TAG_SPEC = new RegExp(`^${LWS}*([A-Za-z][A-Za-z0-9_]*)${LWS}*=${LWS}*((?:${TVAL}(?:${LWS}+${TVAL})*)?)${LWS}*$`);
const ONLY_LWS = new RegExp(`^${LWS}*$`);

export function parseTagList(text: string): TagList {
  const specs = text.split(';');
  // A trailing ";" is allowed (tag-list = tag-spec *( ";" tag-spec ) [ ";" ]).
  if (specs.length > 1 && ONLY_LWS.test(specs[specs.length - 1] ?? '')) specs.pop();
  const tags: Array<[string, string]> = [];
  const seen = new Set<string>();
  for (const spec of specs) {
    const match = TAG_SPEC.exec(spec);
    if (!match) return { ok: false, reason: `"${spec.trim()}" is not a tag=value pair (RFC 6376 §3.2)` };
    const [, name = '', value = ''] = match;
    if (seen.has(name)) return { ok: false, reason: `the tag ${name}= appears twice, which makes the record invalid (RFC 6376 §3.2)` };
    seen.add(name);
    tags.push([name, value]);
  }
  return { ok: true, tags };
}

/** A colon-separated value (`h=sha1:sha256`, `s=email:*`, `t=y:s`) as its items, FWS around the colons removed. */
export function colonList(value: string): string[] {
  return value.split(':').map((item) => item.replace(/^[\s]+|[\s]+$/g, ''));
}
