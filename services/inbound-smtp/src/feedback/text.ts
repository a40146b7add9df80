// Text helpers shared by the format readers: readable text out of parts, bounded and with
// line ends normalized to LF so the readers' patterns need not care.

/** Characters of readable text a reader scans. */
export const MAX_TEXT_CHARS = 256 * 1024;

/** LF line ends, at most MAX_TEXT_CHARS characters. */
export function normalizeText(text: string): string {
  return text.slice(0, MAX_TEXT_CHARS).replace(/\r\n?/g, '\n');
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/** A plain rendering of HTML: blocks become lines, tags go, common entities are decoded. */
export function htmlToText(html: string): string {
  return dropBlocks(html)
    .replace(/<br\s*\/?>|<\/(?:p|div|tr|li|h\d|table|pre)\s*>/gi, '\n')
    .replace(/<[^<>]*>/g, '')
    .replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z0-9]{1,10});/gi, (whole, name: string) => {
      if (name.startsWith('#x') || name.startsWith('#X')) return String.fromCodePoint(Number.parseInt(name.slice(2), 16) || 32);
      if (name.startsWith('#') && name !== '#39') return String.fromCodePoint(Number(name.slice(1)) || 32);
      return ENTITIES[name.toLowerCase()] ?? whole;
    })
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n');
}

/** Collapses runs of whitespace (a wrapped diagnostic becomes one line). */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** An address without angle brackets, `rfc822;` type or surrounding spaces. */
export function bareAddress(text: string): string {
  return text.replace(/^\s*(?:rfc822|utf-8)\s*;/i, '').trim().replace(/^<(.*)>$/, '$1').trim();
}

/** Removes <style>, <script> and <head> elements with their content, scanning once. */
function dropBlocks(html: string): string {
  const lower = html.toLowerCase();
  const opening = /<(style|script|head)\b/g;
  let out = '';
  let at = 0;
  for (;;) {
    opening.lastIndex = at;
    const open = opening.exec(lower);
    if (!open) return out + html.slice(at);
    out += html.slice(at, open.index);
    const close = lower.indexOf(`</${open[1]}`, open.index);
    const end = close < 0 ? -1 : lower.indexOf('>', close);
    if (end < 0) return out;
    at = end + 1;
  }
}
