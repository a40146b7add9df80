import { type Token, Tokenizer, type TokenHandler, TokenizerMode } from 'parse5';

/** An `href` of an `<a>` or `<area>` start tag (`xlink:href` of an SVG `<a>` without `href`), where it sits in the source. */
export interface HrefSite {
  /** The attribute's value as the parser reads it (character references decoded). */
  value: string;
  /** Source offsets of the value's characters, quotes excluded. */
  start: number;
  end: number;
  /** The quote around the value in the source; null for an unquoted value. */
  quote: '"' | "'" | null;
  /** The link carries `data-mailroom-track="off"`. */
  trackingOff: boolean;
}

/** What link tracking needs to know of an HTML document. */
export interface HtmlScan {
  hrefs: HrefSite[];
  /**
   * Offset of the first `</body>` end tag a browser honours, where the open pixel goes; null
   * without one. One inside a `<template>` is ignored: the template's content is inert, and an
   * image put there would never load.
   */
  bodyEnd: number | null;
  /**
   * Where the pixel goes without `</body>`: the end of the document, or, when it ends inside a
   * comment, a tag or text-only content (`<style>` never closed), the end of the last markup
   * read in full before that, so that the pixel is an image and not part of the unfinished rest;
   * and when a `<template>` is never closed, before it.
   */
  end: number;
  /**
   * The `href` of the first HTML `<base>` that has one, as the parser reads it; null without one.
   * An SVG or MathML `base`, or one in a `<template>`, is not the document's (HTML §4.2.3).
   */
  baseHref: string | null;
}

// Elements whose content the tokenizer must read as text, as the tree builder would tell it
// (HTML §13.2.6.4); scripting is taken as off, as in mail clients, so <noscript> is markup.
const TEXT_MODES: Record<string, (typeof TokenizerMode)[keyof typeof TokenizerMode]> = {
  title: TokenizerMode.RCDATA,
  textarea: TokenizerMode.RCDATA,
  style: TokenizerMode.RAWTEXT,
  xmp: TokenizerMode.RAWTEXT,
  iframe: TokenizerMode.RAWTEXT,
  noembed: TokenizerMode.RAWTEXT,
  noframes: TokenizerMode.RAWTEXT,
  script: TokenizerMode.SCRIPT_DATA,
  plaintext: TokenizerMode.PLAINTEXT,
};
const LINK_ELEMENTS = new Set(['a', 'area']);
const FOREIGN_ROOTS = new Set(['svg', 'math']);
// Where SVG and MathML hand back to HTML parsing (HTML §13.2.6.5's HTML and MathML text
// integration points), each only in its own namespace: `<title>` in an `<svg>`, `<mi>` in a
// `<math>`, `<annotation-xml>` only with an HTML `encoding`.
const INTEGRATION_POINTS: Record<string, ReadonlySet<string>> = {
  svg: new Set(['foreignobject', 'desc', 'title']),
  math: new Set(['mi', 'mo', 'mn', 'ms', 'mtext', 'annotation-xml']),
};
const HTML_ENCODINGS = new Set(['text/html', 'application/xhtml+xml']);
// HTML start tags that end foreign content where they appear (HTML §13.2.6.5): what follows is HTML again.
const BREAKOUT_TAGS = new Set(
  'b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i img li listing menu meta nobr ol p pre ruby s small span strong strike sub sup table tt u ul var'.split(' '),
);

/**
 * Reads an HTML document with parse5's spec tokenizer (with source offsets) and finds the
 * `href`s of links, where `</body>` is and the document's `<base href>`. Comments (Outlook's
 * `<!--[if mso]>…<![endif]-->` included), script, style and other text-only content are
 * tokens of their own, so nothing in them is taken for a link. The document is not changed.
 */
export function scanHtml(html: string): HtmlScan {
  const scan: HtmlScan = { hrefs: [], bodyEnd: null, baseHref: null, end: 0 };
  const foreign = new ForeignStack();
  // Open HTML `<template>`s, and where the outermost one starts.
  let templates = 0;
  let templateStart = 0;
  const inForeign = () => foreign.inForeign();
  // Back to the innermost integration point, or out of foreign content altogether.
  const leaveForeign = () => {
    while (foreign.inForeign()) foreign.pop();
  };
  // A token after which the tokenizer reads markup again (not inside text-only content) ends a safe place for the pixel.
  const read = (token: { location: Token.Location | null }) => {
    if (tokenizer.state === TokenizerMode.DATA && token.location) scan.end = token.location.endOffset;
  };
  const handler: TokenHandler = {
    onStartTag(token: Token.TagToken) {
      const name = token.tagName;
      if (inForeign() && breaksOut(token)) leaveForeign();
      const point = inForeign() && isIntegrationPoint(foreign.root(), token);
      if (FOREIGN_ROOTS.has(name) || point) {
        if (!token.selfClosing) foreign.push(name, point);
      } else if (!inForeign()) {
        const mode = TEXT_MODES[name];
        if (mode !== undefined) tokenizer.state = mode;
      }
      const html5 = !inForeign();
      if (html5 && name === 'template' && !token.selfClosing && token.location) {
        if (templates === 0) templateStart = token.location.startOffset;
        templates += 1;
      }
      tokenizer.inForeignNode = inForeign();
      if (name === 'base' && html5 && templates === 0 && scan.baseHref === null) scan.baseHref = attribute(token, 'href');
      if (LINK_ELEMENTS.has(name)) {
        // An SVG link may still name its target with SVG 1.1's `xlink:href` (SVG 2 §16.2: `href` wins when both are there).
        const inSvg = inForeign() && foreign.root() === 'svg';
        const site = hrefSite(html, token, inSvg && attribute(token, 'href') === null ? 'xlink:href' : 'href');
        if (site) scan.hrefs.push(site);
      }
      read(token);
    },
    onEndTag(token: Token.TagToken) {
      const closed = foreign.close(token.tagName);
      if (!closed && inForeign() && (token.tagName === 'p' || token.tagName === 'br')) leaveForeign();
      else if (!closed && token.tagName === 'template' && !inForeign() && templates > 0) templates -= 1;
      tokenizer.inForeignNode = inForeign();
      if (token.tagName === 'body' && templates === 0 && scan.bodyEnd === null && token.location) scan.bodyEnd = token.location.startOffset;
      read(token);
    },
    onComment: read,
    onDoctype: read,
    onEof() {
      if (tokenizer.state === TokenizerMode.DATA) scan.end = html.length;
      if (templates > 0) scan.end = Math.min(scan.end, templateStart);
    },
    onCharacter: read,
    onNullCharacter: read,
    onWhitespaceCharacter: read,
  };
  const tokenizer = new Tokenizer({ sourceCodeLocationInfo: true }, handler);
  tokenizer.write(html, true);
  return scan;
}

/** Whether the start tag opens an HTML integration point of the foreign element `root` it is in. */
function isIntegrationPoint(root: string | undefined, token: Token.TagToken): boolean {
  if (root === undefined || !INTEGRATION_POINTS[root]?.has(token.tagName)) return false;
  return token.tagName !== 'annotation-xml' || HTML_ENCODINGS.has((attribute(token, 'encoding') ?? '').trim().toLowerCase());
}

/**
 * The open foreign elements (svg, math) and HTML integration points, innermost last, with a
 * count per name and the places of the roots, so that an end tag and the innermost root are
 * found without walking the stack: hostile nesting (`<svg>` a hundred thousand times, then as
 * many unrelated end tags) stays linear.
 */
class ForeignStack {
  private readonly names: string[] = [];
  private readonly points: boolean[] = [];
  private readonly counts = new Map<string, number>();
  private readonly roots: number[] = [];

  push(name: string, point: boolean): void {
    if (!point) this.roots.push(this.names.length);
    this.names.push(name);
    this.points.push(point);
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
  }

  pop(): void {
    const name = this.names.pop();
    if (name === undefined) return;
    this.points.pop();
    if (this.roots.at(-1) === this.names.length) this.roots.pop();
    this.counts.set(name, (this.counts.get(name) ?? 1) - 1);
  }

  /** An end tag: closes the innermost open element of that name and all inside it; false when none is open. */
  close(name: string): boolean {
    if (!this.counts.get(name)) return false;
    const at = this.names.lastIndexOf(name);
    while (this.names.length > at) this.pop();
    return true;
  }

  /** Inside a foreign element and not in one of its integration points. */
  inForeign(): boolean {
    return this.names.length > 0 && this.points[this.points.length - 1] === false;
  }

  /** The innermost foreign root (`svg` or `math`), if any. */
  root(): string | undefined {
    const at = this.roots.at(-1);
    return at === undefined ? undefined : this.names[at];
  }
}

/** `<p>` in an `<svg>`, `<font color>` in a `<math>`: an HTML element the tree builder takes out of the foreign one. */
function breaksOut(token: Token.TagToken): boolean {
  if (token.tagName === 'font') return token.attrs.some((a) => a.name === 'color' || a.name === 'face' || a.name === 'size');
  return BREAKOUT_TAGS.has(token.tagName);
}

function attribute(token: Token.TagToken, name: string): string | null {
  return token.attrs.find((a) => a.name === name)?.value ?? null;
}

/**
 * Where the value of the tag's `href` is: the tokenizer gives where the attribute starts;
 * from there its syntax (name, `=`, a quoted or unquoted value) is read again. A duplicate
 * `href` is ignored, as browsers ignore it.
 */
function hrefSite(html: string, token: Token.TagToken, name: 'href' | 'xlink:href'): HrefSite | null {
  const value = attribute(token, name);
  const location = token.location?.attrs?.[name];
  if (value === null || !location) return null;
  let i = location.startOffset + name.length;
  while (isSpace(html.charCodeAt(i))) i++;
  if (html[i] !== '=') return null; // `<a href>`: no value to replace
  i++;
  while (isSpace(html.charCodeAt(i))) i++;
  const first = html[i];
  const trackingOff = attribute(token, 'data-mailroom-track')?.trim().toLowerCase() === 'off';
  if (first === '"' || first === "'") {
    const end = html.indexOf(first, i + 1);
    if (end < 0) return null;
    return { value, start: i + 1, end, quote: first, trackingOff };
  }
  let end = i;
  while (end < html.length && !isSpace(html.charCodeAt(end)) && html[end] !== '>') end++;
  return { value, start: i, end, quote: null, trackingOff };
}

/** The tokenizer's whitespace between attributes: tab, LF, FF, CR, space. */
function isSpace(code: number): boolean {
  return code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d || code === 0x20;
}
