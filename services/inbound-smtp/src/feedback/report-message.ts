import { decodeBody, decodeWords, header, isAttachedMessage, MAX_SCAN_BYTES, type MimeEntity, parseEntity, parseHeaderBlock, walk } from './mime';
import type { OriginalRef } from './report';
import { htmlToText, normalizeText } from './text';

/** A report parsed once and handed to every format reader. */
export interface ReportMessage {
  root: MimeEntity;
  subject: string;
  from: string;
  /** The human-readable text: text parts outside any attached original (HTML when no plain text), LF line ends. */
  text: string;
}

/** Media types that carry the original message or only its headers. */
const ORIGINAL_TYPES = new Set(['message/rfc822', 'message/global', 'text/rfc822-headers', 'message/rfc822-headers', 'message/global-headers']);

// VERP return paths as packages/core/src/verp.ts builds them; the caller verifies the MAC.
const VERP = /bounces\+rcpt_[0-9a-z]{26}-[0-9a-f]{12}@[a-z0-9.-]*[a-z0-9]/i;

/** Parses raw bytes (only the first MAX_SCAN_BYTES) into a ReportMessage. */
export function readMessage(raw: Buffer): ReportMessage {
  const root = parseEntity(raw.subarray(0, MAX_SCAN_BYTES).toString('latin1'));
  return {
    root,
    subject: decodeWords(utf8Header(header(root, 'subject') ?? '')),
    from: decodeWords(utf8Header(header(root, 'from') ?? '')),
    text: readableText(root),
  };
}

/** The text parts outside attached messages, joined; HTML is used only when there is no plain text. */
function readableText(root: MimeEntity): string {
  const parts = walk(root, { intoMessages: false }).filter((e) => e.children.length === 0 && !isAttachment(e));
  const plain = parts.filter((e) => e.type === 'text/plain');
  if (plain.length > 0) return normalizeText(plain.map((e) => decodeBody(e)).join('\n'));
  const html = parts.filter((e) => e.type === 'text/html');
  return normalizeText(html.map((e) => htmlToText(decodeBody(e))).join('\n'));
}

function isAttachment(entity: MimeEntity): boolean {
  return /^\s*attachment/i.test(header(entity, 'content-disposition') ?? '') && !entity.type.startsWith('text/plain');
}

/** The attached original (or its headers) in a report, parsed, if there is one. */
export function attachedOriginal(message: ReportMessage): MimeEntity | null {
  for (const part of walk(message.root, { intoMessages: false })) {
    if (part === message.root || !ORIGINAL_TYPES.has(part.type)) continue;
    if (isAttachedMessage(part.type)) return part.children[0] ?? null;
    return { headers: parseHeaderBlock(decodeBody(part, 'latin1')), type: 'text/plain', params: {}, body: '', children: [] };
  }
  return null;
}

/** Identifiers from an original's headers: Message-ID, a VERP Return-Path (or one in any envelope line), To. */
export function originalFromHeaders(entity: MimeEntity): OriginalRef {
  const ref: OriginalRef = {};
  const messageId = /<[^<>\s]+>/.exec(header(entity, 'message-id') ?? '')?.[0];
  if (messageId) ref.messageId = messageId;
  const returnPath = VERP.exec(header(entity, 'return-path') ?? '')?.[0] ?? findVerp(entity.headers.map((h) => h.value).join('\n'));
  if (returnPath) ref.returnPath = returnPath;
  const to = header(entity, 'to');
  if (to) ref.to = decodeWords(utf8Header(to));
  return ref;
}

/**
 * A header value's raw bytes (held one character per byte) read as UTF-8, as RFC 6532 allows in
 * headers (an internationalized To of a returned original); bytes that are not UTF-8 stay as they are.
 */
function utf8Header(value: string): string {
  if (!/[\x80-\xff]/.test(value)) return value;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(value, 'latin1'));
  } catch {
    return value;
  }
}

/** A VERP return path anywhere in the text, if any. */
export function findVerp(text: string): string | undefined {
  return VERP.exec(text)?.[0];
}

/**
 * Identifiers from a copy of the original pasted into the report's text (qmail, Exim, Yahoo,
 * Exchange's "Original message headers:"): header lines found anywhere after `from`.
 */
export function originalFromText(text: string): OriginalRef {
  const ref: OriginalRef = {};
  const messageId = /^[ \t>]*(?:X-)?(?:Original-)?Message-ID:[ \t]*\n?[ \t]*(<[^<>\s]+>)/im.exec(text)?.[1];
  if (messageId) ref.messageId = messageId;
  const returnPath = /^[ \t>]*Return-Path:[ \t]*<?([^\s<>]+)>?/im.exec(text)?.[1];
  const verp = (returnPath && findVerp(returnPath)) || findVerp(text);
  if (verp) ref.returnPath = verp;
  const to = /^[ \t>]*To:[ \t]*(\S.*)$/im.exec(text)?.[1];
  if (to) ref.to = decodeWords(to.trim());
  return ref;
}

/** The original's identifiers: from an attached original when there is one, else from the text. */
export function findOriginal(message: ReportMessage, textAfter = 0): OriginalRef {
  const attached = attachedOriginal(message);
  const fromText = originalFromText(message.text.slice(textAfter));
  if (!attached) return fromText;
  const fromAttached = originalFromHeaders(attached);
  // A text copy can keep what a redacted attachment lost (e.g. the VERP in a pasted Return-Path).
  return { ...fromText, ...fromAttached };
}
