// A small, bounded MIME reader for reports. mailparser flattens a message into text, html and
// attachments and loses what reports need: the header groups of message/delivery-status, the
// headers of an attached original, the order of parts. This keeps the tree, works on a latin1
// copy of the bytes (one character per byte, so nothing is lost before charsets are decoded)
// and never throws: malformed structure ends a part early instead.

/** Bytes of a report we look at; a report's readable parts come first, the original last. */
export const MAX_SCAN_BYTES = 2 * 1024 * 1024;
/** Nesting of multiparts and attached messages we follow. */
const MAX_DEPTH = 6;
/** Parts we split out, over the whole tree. */
const MAX_PARTS = 200;
/** Characters of one header block we parse; longer blocks are cut. */
const MAX_HEADER_CHARS = 256 * 1024;

export interface Header {
  /** Lower-cased name. */
  name: string;
  /** Unfolded value, trimmed; encoded words not decoded. */
  value: string;
}

export interface MimeEntity {
  headers: Header[];
  /** Lower-cased media type, `text/plain` when absent. */
  type: string;
  /** Content-Type parameters, names lower-cased. */
  params: Record<string, string>;
  /** The body as a latin1 string, still transfer-encoded. */
  body: string;
  /** Parts of a multipart, or the one message of a message/rfc822 (or message/global). */
  children: MimeEntity[];
}

/** The first value of a header, or undefined. */
export function header(entity: { headers: Header[] }, name: string): string | undefined {
  return entity.headers.find((h) => h.name === name)?.value;
}

/** Splits a header block (no body) into unfolded headers. Lines that are not headers are skipped. */
export function parseHeaderBlock(block: string): Header[] {
  // Folded lines are collected and joined once: joining as they come is quadratic on hostile input.
  const collected: { name: string; pieces: string[] }[] = [];
  for (const line of block.slice(0, MAX_HEADER_CHARS).split(/\r?\n/)) {
    if (/^[ \t]/.test(line)) {
      const piece = line.trim();
      if (piece) collected[collected.length - 1]?.pieces.push(piece);
      continue;
    }
    const match = /^([!-9;-~]+)[ \t]*:[ \t]*(.*)$/.exec(line);
    if (match?.[1]) collected.push({ name: match[1].toLowerCase(), pieces: [(match[2] ?? '').trim()] });
  }
  return collected.map((h) => ({ name: h.name, value: h.pieces.filter(Boolean).join(' ') }));
}

/** Parses `type/subtype; a=b; c="d"`. */
export function parseContentType(value: string | undefined): { type: string; params: Record<string, string> } {
  const params: Record<string, string> = {};
  if (!value) return { type: 'text/plain', params };
  const [first = '', ...rest] = value.split(';');
  const paramText = rest.join(';');
  const pattern = /([!#-'*+.0-9A-Z^-~-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;\s]*)/gi;
  for (const m of paramText.matchAll(pattern)) {
    const raw = m[2] ?? '';
    params[(m[1] ?? '').toLowerCase()] = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
  }
  const type = first.trim().toLowerCase();
  return { type: /^[\w.+-]+\/[\w.+-]+$/.test(type) ? type : 'text/plain', params };
}

/** Where the header block ends and the body begins; -1 when there is no blank line. */
function headerEnd(text: string): { end: number; bodyStart: number } {
  const match = /\r?\n\r?\n/.exec(text);
  return match ? { end: match.index, bodyStart: match.index + match[0].length } : { end: -1, bodyStart: -1 };
}

/** True when the text starts like a message: a header line (after an optional mbox `From ` line). */
export function looksLikeHeaders(text: string): boolean {
  return /^[!-9;-~]+[ \t]*:/.test(text);
}

/** Removes an mbox `From ` separator line (and a BOM or leading blank lines) at the start. */
export function stripEnvelopeLine(text: string): string {
  let out = text.replace(/^\uFEFF|^\xEF\xBB\xBF/, '').replace(/^(?:[ \t]*\r?\n)+/, '');
  if (/^>?From /.test(out)) out = out.slice(out.indexOf('\n') + 1 || out.length);
  return out;
}

interface Budget {
  parts: number;
}

/** Parses a message (or part) given as a latin1 string. */
export function parseEntity(input: string, depth = 0, budget: Budget = { parts: 0 }): MimeEntity {
  const text = depth === 0 ? stripEnvelopeLine(input) : input;
  let headers: Header[] = [];
  let body = text;
  if (looksLikeHeaders(text)) {
    const { end, bodyStart } = headerEnd(text);
    headers = parseHeaderBlock(end < 0 ? text : text.slice(0, end));
    body = end < 0 ? '' : text.slice(bodyStart);
  }
  const { type, params } = parseContentType(header({ headers }, 'content-type'));
  const entity: MimeEntity = { headers, type, params, body, children: [] };
  if (depth >= MAX_DEPTH) return entity;
  if (type.startsWith('multipart/')) {
    for (const part of params.boundary ? splitMultipart(body, params.boundary) : []) {
      if (budget.parts >= MAX_PARTS) break;
      budget.parts += 1;
      entity.children.push(parseEntity(part, depth + 1, budget));
    }
    // A multipart whose boundary is missing or never used (a rewriting relay changed one side):
    // read as text/plain, RFC 2045 §5.2's default for an invalid Content-Type, as the received
    // mail parser does, so the report's words are still read.
    if (entity.children.length === 0) entity.type = 'text/plain';
  } else if (isAttachedMessage(type) && budget.parts < MAX_PARTS) {
    budget.parts += 1;
    entity.children.push(parseEntity(withoutLeadIn(decodeBody(entity, 'latin1')), depth + 1, budget));
  }
  return entity;
}

/**
 * An attached message with blank lines before its header (some feedback loops write one after
 * the part's own header block), or an mbox `From ` line (Yahoo's feedback loop attaches the
 * original as its mailbox stored it): strictly a message without a header, in practice the
 * original whose Message-ID and Return-Path identify what a report is about. Only skipped when
 * a header line follows.
 */
function withoutLeadIn(text: string): string {
  return text.replace(/^(?:[ \t]*\r?\n){0,20}(?:>?From [^\r\n]{0,998}\r?\n)?(?=[!-9;-~]+[ \t]*:)/, '');
}

/** Media types whose body is a whole message. */
export function isAttachedMessage(type: string): boolean {
  return type === 'message/rfc822' || type === 'message/global';
}

/**
 * The parts between boundary lines; a missing closing boundary ends the last part at the end. A
 * boundary line indented by a few spaces (RFC 2046 wants it at the line's start; some MTAs
 * write ` --boundary` before the delivery-status part) still is one: a boundary is chosen not to
 * occur in the parts, so no content line is taken for it.
 */
function splitMultipart(body: string, boundary: string): string[] {
  const escaped = boundary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const delimiter = new RegExp(`(?:^|\\r?\\n)[ \\t]{0,4}--${escaped}(--)?[ \\t]*(?=\\r?\\n|$)`, 'g');
  const parts: string[] = [];
  let start = -1;
  for (const m of body.matchAll(delimiter)) {
    if (start >= 0) parts.push(body.slice(start, m.index).replace(/^\r?\n/, ''));
    if (m[1] || parts.length >= MAX_PARTS) return parts;
    start = (m.index ?? 0) + m[0].length;
    if (body[start] === '\r') start += 1;
    if (body[start] === '\n') start += 1;
  }
  if (start >= 0 && start < body.length) parts.push(body.slice(start));
  return parts;
}

function decodeQuotedPrintable(text: string): string {
  return text.replace(/=\r?\n/g, '').replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** The body with its transfer encoding undone, as latin1 (bytes) or decoded with its charset. */
export function decodeBody(entity: MimeEntity, as: 'latin1' | 'text' = 'text'): string {
  const encoding = (header(entity, 'content-transfer-encoding') ?? '').trim().toLowerCase();
  let bytes = entity.body;
  if (encoding === 'base64') bytes = Buffer.from(bytes.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64').toString('latin1');
  else if (encoding === 'quoted-printable') bytes = decodeQuotedPrintable(bytes);
  return as === 'latin1' ? bytes : decodeCharset(bytes, entity.params.charset);
}

/** Decodes latin1-held bytes with a charset label; unknown labels and us-ascii read as UTF-8. */
export function decodeCharset(bytes: string, charset: string | undefined): string {
  const label = (charset ?? 'utf-8').trim().toLowerCase();
  const buffer = Buffer.from(bytes, 'latin1');
  if (label === 'us-ascii' || label === 'ascii') return buffer.toString('utf8');
  try {
    return new TextDecoder(label).decode(buffer);
  } catch {
    return buffer.toString('utf8');
  }
}

/** Decodes RFC 2047 encoded words (`=?utf-8?B?...?=`) in a header value. */
export function decodeWords(value: string): string {
  return value
    .replace(/(=\?[^?\s]+\?[BbQq]\?[^?\s]*\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?\s*]+)(?:\*[^?\s]*)?\?([BbQq])\?([^?\s]*)\?=/g, (_, charset: string, enc: string, data: string) => {
      const bytes =
        enc.toUpperCase() === 'B'
          ? Buffer.from(data, 'base64').toString('latin1')
          : data.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (__, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
      return decodeCharset(bytes, charset);
    });
}

/** Depth-first list of the entity and its descendants, optionally not entering attached messages. */
export function walk(entity: MimeEntity, options: { intoMessages: boolean }): MimeEntity[] {
  const out: MimeEntity[] = [];
  const visit = (e: MimeEntity) => {
    out.push(e);
    if (!options.intoMessages && isAttachedMessage(e.type) && e !== entity) return;
    for (const child of e.children) visit(child);
  };
  visit(entity);
  return out;
}
