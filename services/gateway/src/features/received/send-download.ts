import type { Response } from 'express';

// A MIME type without parameters; anything else (or a CR/LF that would break the header) is refused.
const MIME_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// Kept short: some clients and file systems refuse longer names.
const MAX_FALLBACK = 150;

/** The stored content type reduced to `type/subtype`, or `application/octet-stream` when it is not one. */
export function safeContentType(contentType: string): string {
  const bare = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return MIME_TYPE.test(bare) ? bare : 'application/octet-stream';
}

// Path separators and control characters: no file name needs them, and a client that saves under
// the name it is given (RFC 6266 §4.3 asks it not to trust one) could be sent out of its directory.
// Also the bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069): a
// right-to-left override shows `invoice\u202Efdp.exe` as "invoiceexe.pdf" in a save dialog.
const UNSAFE_IN_NAME = /[/\\\p{Cc}\u202a-\u202e\u2066-\u2069]/gu;

/**
 * `attachment; filename="…"; filename*=UTF-8''…` (RFC 6266): a plain ASCII fallback for old
 * clients, with quotes, backslashes, `%`, path separators and anything outside printable ASCII
 * replaced, and the name percent-encoded (RFC 8187) for the others, path separators, control
 * characters and bidirectional overrides replaced there too (the received email's `filename` keeps the name as sent).
 */
export function attachmentDisposition(filename: string): string {
  const name = filename.replace(LONE_SURROGATE, '\uFFFD').replace(UNSAFE_IN_NAME, '_');
  const fallback = name.replace(/[^\x20-\x7e]|["\\%/]/g, '_').trim().slice(0, MAX_FALLBACK) || 'attachment';
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/**
 * Answers stored bytes as a download that no browser renders or sniffs: always an attachment,
 * `nosniff`, and a sandboxing CSP in case it is opened anyway. The Buffer is written once, as is.
 */
export function sendDownload(res: Response, download: { body: Buffer; contentType: string; disposition: string }): void {
  res.status(200);
  res.setHeader('Content-Type', download.contentType);
  res.setHeader('Content-Disposition', download.disposition);
  res.setHeader('Content-Length', download.body.length);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', 'sandbox');
  // Per-caller and possibly confidential: no shared cache may keep it.
  res.setHeader('Cache-Control', 'private, no-store');
  res.end(download.body);
}
