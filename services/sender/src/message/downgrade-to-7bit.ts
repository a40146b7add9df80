import { isAscii } from 'node:buffer';
import { Readable, type Transform } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import * as base64 from 'nodemailer/lib/base64';
import { parseHeaderValue } from 'nodemailer/lib/mime-funcs';
import * as qp from 'nodemailer/lib/qp';
import type { RawMessage } from '../delivery/raw-message';

/** The `code` of a {@link CannotDowngradeError}, as the deliverer's classification reads it. */
export const CANNOT_DOWNGRADE = 'ECANNOTDOWNGRADE';

/** A message whose 8-bit bytes no 7-bit copy can carry: it goes nowhere that offers no 8BITMIME. */
export class CannotDowngradeError extends Error {
  override readonly name = 'CannotDowngradeError';
  readonly code = CANNOT_DOWNGRADE;

  constructor(reason: string) {
    super(`The next hop offers no 8BITMIME and the message cannot be made 7-bit: ${reason}`);
  }
}

// Entities nested deeper than this are refused, not followed (a hostile .eml can nest thousands).
const MAX_DEPTH = 32;
const CRLF = Buffer.from('\r\n');
const BLANK_LINE = Buffer.from('\r\n\r\n');
/** Transfer encodings that leave the bytes as they are (RFC 2045 §6.2), the only ones a composite type may have (§6.4). */
const IDENTITY = new Set(['7bit', '8bit', 'binary']);
/** message/* types whose content may be base64 or quoted-printable, unlike message/rfc822 (RFC 6532 §3.7, RFC 6533 §6). */
const ENCODABLE_MESSAGE = /^message\/global(?:-headers|-delivery-status|-disposition-notification)?$/;

interface Field {
  /** Lower-cased. */
  name: string;
  /** Unfolded, without its CRLF. */
  value: string;
  /** Offsets into the header section's text; `end` is after the field's CRLF. */
  start: number;
  end: number;
}

interface Entity {
  start: number;
  end: number;
  /** The type without a Content-Type field: text/plain, message/rfc822 in a multipart/digest (RFC 2046 §5.1.5). */
  defaultType: string;
  /** A whole message (the top level, or a message/rfc822 part's content), not a body part. */
  isMessage: boolean;
  depth: number;
}

/**
 * A 7-bit copy of `raw`, for a next hop that offers no 8BITMIME (RFC 6152 §3), made as Postfix
 * makes one: every leaf part whose content has 8-bit bytes is re-encoded and its
 * Content-Transfer-Encoding field rewritten; multipart/* and message/rfc822 parts (which may not
 * be encoded, RFC 2045 §6.4, RFC 2046 §5.2.1) are followed into, and their own 8bit or binary
 * becomes 7bit. Everything else is kept byte for byte: every other header field as written,
 * boundaries, preambles and epilogues, and every part with no 8-bit byte. The copy's parts slice
 * the message (joined once here) and add only the re-encoded content and rewritten header sections.
 *
 * A text/* (or message/global) part becomes quoted-printable, which keeps it readable line by line,
 * while its 8-bit bytes are fewer than its ASCII letters (nodemailer's rule for the text it
 * encodes); mostly non-ASCII text (CJK, Cyrillic), on which QP spends 3 bytes per byte, and any
 * other part become base64. QP is written in binary mode, so a bare CR or LF stays data (=0D,
 * =0A): every decoded byte is the original's. message/global and its
 * RFC 6533 siblings are encoded whole (RFC 6532 §3.7 allows it), which keeps the nested message
 * exact, UTF-8 header fields included.
 *
 * Throws {@link CannotDowngradeError} where no transfer encoding can help: 8-bit bytes in a header
 * section (they need SMTPUTF8, RFC 6531), a preamble or an epilogue, a message without MIME-Version
 * (not MIME, RFC 2045 §4), a part declared base64 or quoted-printable (or an unknown encoding)
 * that still has 8-bit bytes, and structure that cannot be rewritten safely: a multipart without
 * its boundary or closing delimiter, a header section without its end, a second Content-Type or
 * Content-Transfer-Encoding field, another message/* type, nesting deeper than 32.
 */
export async function downgradeTo7Bit(raw: Buffer | RawMessage): Promise<RawMessage> {
  const message = Buffer.isBuffer(raw) ? raw : Buffer.concat(raw);
  const out: Buffer[] = [];
  await rewrite(message, { start: 0, end: message.length, defaultType: 'text/plain', isMessage: true, depth: 0 }, out);
  // A safety net under the checks above: the copy exists to be 7-bit.
  if (!out.every((part) => isAscii(part))) throw new CannotDowngradeError('8-bit bytes outside any part that can be encoded');
  return out;
}

/** Appends `entity` to `out`, as it is when it is all 7-bit, else rewritten. */
async function rewrite(buf: Buffer, entity: Entity, out: Buffer[]): Promise<void> {
  const { start, end } = entity;
  if (isAscii(buf.subarray(start, end))) {
    if (end > start) out.push(buf.subarray(start, end));
    return;
  }
  if (entity.depth > MAX_DEPTH) throw new CannotDowngradeError(`parts nested deeper than ${MAX_DEPTH}`);
  // The header section ends at the first empty line; a part may have none (it starts with the empty line).
  const noHeader = buf[start] === 0x0d && buf[start + 1] === 0x0a;
  const blank = noHeader ? -1 : buf.indexOf(BLANK_LINE, start);
  if (!noHeader && (blank < 0 || blank + 4 > end)) throw new CannotDowngradeError('a part with 8-bit bytes has no end to its header section');
  const headerEnd = noHeader ? start : blank + 2;
  const bodyStart = headerEnd + 2;
  const header = buf.subarray(start, headerEnd);
  if (!isAscii(header)) throw new CannotDowngradeError('a header field has 8-bit bytes (that needs SMTPUTF8, RFC 6531)');
  const text = header.toString('latin1');
  const fields = fieldsOf(text);
  if (entity.isMessage && !fields.some((f) => f.name === 'mime-version')) {
    throw new CannotDowngradeError('a message without MIME-Version (not MIME, RFC 2045 §4) has 8-bit bytes in its body');
  }
  const { type, params } = contentType(fields, entity.defaultType);
  const cteField = single(fields, 'content-transfer-encoding');
  const cte = cteField ? parseHeaderValue(cteField.value, { stripComments: true }).value.trim().toLowerCase() : null;
  /** The header section and its empty line, with the Content-Transfer-Encoding given (null: as written). */
  const headerWith = (encoding: string | null): Buffer => {
    if (encoding === null) return buf.subarray(start, bodyStart);
    const written = `Content-Transfer-Encoding: ${encoding}\r\n`;
    const rewritten = cteField ? text.slice(0, cteField.start) + written + text.slice(cteField.end) : text + written;
    return Buffer.from(`${rewritten}\r\n`, 'latin1');
  };

  const composite = type.startsWith('multipart/') || type === 'message/rfc822';
  if (composite && cte !== null && !IDENTITY.has(cte)) throw new CannotDowngradeError(`a ${type} part is declared ${cte} (RFC 2045 §6.4)`);
  const asComposite = composite && (cte === '8bit' || cte === 'binary') ? '7bit' : null;
  const depth = entity.depth + 1;

  if (type.startsWith('multipart/')) {
    const boundary = params.boundary;
    if (!boundary) throw new CannotDowngradeError(`a ${type} part has no boundary`);
    const layout = splitMultipart(buf, bodyStart, end, boundary);
    if (!isAscii(buf.subarray(bodyStart, layout.preambleEnd)) || !isAscii(buf.subarray(layout.epilogueStart, end))) {
      throw new CannotDowngradeError('a multipart preamble or epilogue has 8-bit bytes');
    }
    out.push(headerWith(asComposite));
    const defaultType = type === 'multipart/digest' ? 'message/rfc822' : 'text/plain';
    let cursor = bodyStart;
    for (const part of layout.parts) {
      if (part.start > cursor) out.push(buf.subarray(cursor, part.start)); // the preamble or a delimiter line
      await rewrite(buf, { start: part.start, end: part.end, defaultType, isMessage: false, depth }, out);
      cursor = part.end;
    }
    if (end > cursor) out.push(buf.subarray(cursor, end));
    return;
  }
  if (type === 'message/rfc822') {
    out.push(headerWith(asComposite));
    await rewrite(buf, { start: bodyStart, end, defaultType: 'text/plain', isMessage: true, depth }, out);
    return;
  }
  if (type.startsWith('message/') && !ENCODABLE_MESSAGE.test(type)) {
    throw new CannotDowngradeError(`a ${type} part has 8-bit bytes and may not be encoded (RFC 2046 §5.2)`);
  }
  if (cte !== null && !IDENTITY.has(cte)) throw new CannotDowngradeError(`a part declared ${cte} has 8-bit bytes`);
  const encoded = await encodeContent(buf.subarray(bodyStart, end), type.startsWith('text/') || type.startsWith('message/'));
  out.push(headerWith(encoded.encoding), encoded.content);
}

/** The fields of a header section (its text, each field ending in CRLF); lines that are no field are skipped. */
function fieldsOf(text: string): Field[] {
  const fields: Field[] = [];
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf('\r\n', start);
    while (end >= 0 && (text[end + 2] === ' ' || text[end + 2] === '\t')) end = text.indexOf('\r\n', end + 2);
    end = end < 0 ? text.length : end + 2;
    const line = text.slice(start, end);
    const colon = line.indexOf(':');
    if (colon > 0) fields.push({ name: line.slice(0, colon).trim().toLowerCase(), value: line.slice(colon + 1).replace(/\r\n/g, ''), start, end });
    start = end;
  }
  return fields;
}

/** The one field named `name`, or null; two of them leave readers to disagree on which counts. */
function single(fields: readonly Field[], name: string): Field | null {
  const found = fields.filter((f) => f.name === name);
  if (found.length > 1) throw new CannotDowngradeError(`a part has ${found.length} ${name} fields`);
  return found[0] ?? null;
}

function contentType(fields: readonly Field[], defaultType: string): { type: string; params: Record<string, string> } {
  const field = single(fields, 'content-type');
  if (!field) return { type: defaultType, params: {} };
  const parsed = parseHeaderValue(field.value, { stripComments: true });
  const type = parsed.value.trim().toLowerCase();
  // One that cannot be read is text/plain (RFC 2045 §5.2), as readers take it.
  return /^[^\s/]+\/[^\s/]+$/.test(type) ? { type, params: parsed.params } : { type: 'text/plain', params: {} };
}

interface MultipartLayout {
  /** Each body part, without the delimiter lines around it (the CRLF before a delimiter is the delimiter's, RFC 2046 §5.1.1). */
  parts: Array<{ start: number; end: number }>;
  preambleEnd: number;
  epilogueStart: number;
}

/** Where the delimiter lines of a multipart body [start, end) are: `--boundary` at the start of a line, then optional white space. */
function splitMultipart(buf: Buffer, start: number, end: number, boundary: string): MultipartLayout {
  const dash = Buffer.from(`--${boundary}`, 'latin1');
  const parts: Array<{ start: number; end: number }> = [];
  let preambleEnd = -1;
  let partStart = -1;
  for (let from = start; ; ) {
    const at = buf.indexOf(dash, from);
    if (at < 0 || at + dash.length > end) throw new CannotDowngradeError('a multipart has no closing delimiter');
    from = at + 1;
    if (at !== start && !(at - 2 >= start && buf[at - 2] === 0x0d && buf[at - 1] === 0x0a)) continue;
    let next = at + dash.length;
    const close = buf[next] === 0x2d && buf[next + 1] === 0x2d && next + 2 <= end;
    if (close) next += 2;
    while (next < end && (buf[next] === 0x20 || buf[next] === 0x09)) next++;
    const lineEnd = next + 2 <= end && buf[next] === 0x0d && buf[next + 1] === 0x0a ? next + 2 : next === end ? end : -1;
    if (lineEnd < 0) continue; // the boundary begins a longer line: content, not a delimiter
    const delimiterStart = at === start ? at : at - 2;
    if (partStart < 0) preambleEnd = delimiterStart;
    else if (delimiterStart < partStart) throw new CannotDowngradeError('a multipart delimiter overlaps the one before it');
    else parts.push({ start: partStart, end: delimiterStart });
    if (close) return { parts, preambleEnd, epilogueStart: lineEnd };
    partStart = lineEnd;
  }
}

/** `content` as quoted-printable or base64; see {@link downgradeTo7Bit} for which. */
async function encodeContent(content: Buffer, text: boolean): Promise<{ encoding: 'quoted-printable' | 'base64'; content: Buffer }> {
  if (text && mostlyLatin(content)) return { encoding: 'quoted-printable', content: await through(content, new qp.Encoder({ binary: true })) };
  const encoded = await through(content, new base64.Encoder());
  // nodemailer's base64 ends without a line break: content that ended with one keeps its shape.
  return { encoding: 'base64', content: content.subarray(-2).equals(CRLF) ? Buffer.concat([encoded, CRLF]) : encoded };
}

/** nodemailer's choice for the text it encodes (MimeNode's _getTextEncoding), by bytes: fewer 8-bit and control bytes than ASCII letters. */
function mostlyLatin(content: Buffer): boolean {
  let letters = 0;
  let other = 0;
  for (const byte of content) {
    if (byte >= 0x80 || (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d)) other++;
    else if ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7a) letters++;
  }
  return other < letters;
}

function through(content: Buffer, encoder: Transform): Promise<Buffer> {
  return buffer(Readable.from([content]).pipe(encoder));
}
