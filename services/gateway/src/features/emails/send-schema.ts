import { isStructuredHeader } from '@mailroom/core';
import { z } from 'zod';
import { dateTimeField } from '../../schemas/common';
import { MAX_RECIPIENTS, mailboxField, mailboxListField } from './addresses';

/** Headers Mailroom sets itself; a caller may not (DESIGN §4 "Send"). Lower-cased. */
const RESERVED_HEADERS = new Set(
  [
    'From', 'To', 'Cc', 'Bcc', 'Subject', 'Reply-To', 'Sender', 'Date', 'Message-ID', 'Return-Path', 'Received',
    'MIME-Version', 'Content-Type', 'Content-Transfer-Encoding', 'DKIM-Signature',
  ].map((h) => h.toLowerCase()),
);

const MAX_TAGS = 75;
const noLineBreaks = (value: string) => !/[\r\n]/.test(value);
const NO_LINE_BREAKS = 'must not contain CR or LF';
// A header is folded at white space; a run of printable ASCII without any goes on a line of its
// own after one space, so 998 of them (RFC 5322 §2.1.1's limit) cannot be written at all.
// (Non-ASCII text is written as encoded words, which are split anyway.)
// Values are at most 998 characters, so only one of exactly 998 can be such a run (checked in linear time).
const fitsHeaderLine = (value: string) => value.length < 998 || !/^[!-~]+$/.test(value);
const TOO_LONG_UNBROKEN = 'must not have 998 characters in a row without a space: no header line can hold them';
const HEADER_NAME = /^[!-9;-~]{1,76}$/; // RFC 5322 field name: printable ASCII except ":"
const TAG_PART = /^[A-Za-z0-9_-]{1,256}$/;

const NON_ASCII = /[\u0080-\uffff]/;

/**
 * Why a structured header's value (core's isStructuredHeader: message ids, list URLs and ids)
 * cannot be sent as given, or null: outside SMTPUTF8 it has no non-ASCII form (8BITMIME covers
 * bodies only). A List-Id's phrase may be any text; its <id> may not.
 */
function nonAsciiStructured(name: string, value: string): string | null {
  if (!isStructuredHeader(name)) return null;
  const listId = /^list-id$/i.test(name);
  if (!NON_ASCII.test(listId ? (/<[^<>]*>\s*$/.exec(value)?.[0] ?? '') : value)) return null;
  return listId || /^(?:in-reply-to|references)$/i.test(name)
    ? 'must be ASCII: a message id (or list id) has no non-ASCII form in mail without SMTPUTF8'
    : 'must be ASCII: percent-encode non-ASCII characters of its URLs (RFC 3986), as mail without SMTPUTF8 has no other form for them';
}

const headersField = z.record(z.string(), z.string().max(998).refine(noLineBreaks, NO_LINE_BREAKS).refine(fitsHeaderLine, TOO_LONG_UNBROKEN)).superRefine((headers, ctx) => {
  // Header names are case-insensitive (RFC 5322 §1.2.2): {"X-Ref": …, "x-ref": …} would be sent
  // as two fields, which a receiver may read either way. One value per name is the contract.
  const seen = new Map<string, string>();
  for (const name of Object.keys(headers)) {
    const first = seen.get(name.toLowerCase());
    if (first !== undefined) {
      ctx.addIssue({ code: 'custom', path: [name], message: `repeats the header ${first} (names are case-insensitive; give each once)` });
      continue;
    }
    seen.set(name.toLowerCase(), name);
    if (!HEADER_NAME.test(name)) {
      ctx.addIssue({ code: 'custom', path: [name], message: 'is not a valid header name (printable ASCII, no colon or spaces)' });
    } else if (RESERVED_HEADERS.has(name.toLowerCase())) {
      ctx.addIssue({ code: 'custom', path: [name], message: 'is set by Mailroom and cannot be overridden' });
    } else {
      const refused = nonAsciiStructured(name, headers[name] as string);
      if (refused !== null) ctx.addIssue({ code: 'custom', path: [name], message: refused });
    }
  }
});

/**
 * Standard base64 with padding. Checked in linear time without a backtracking pattern:
 * attachments can be tens of megabytes.
 */
function isBase64(value: string): boolean {
  if (value.length % 4 !== 0 || /[^A-Za-z0-9+/=]/.test(value)) return false;
  const padding = value.indexOf('=');
  return padding === -1 || (padding >= value.length - 2 && /^=+$/.test(value.slice(padding)));
}

/** Attachment content: base64 text, or Node's `{"type":"Buffer","data":[…]}` JSON form. */
const contentField = z.union([
  z
    .string()
    .transform((s) => s.replace(/\s+/g, ''))
    .refine(isBase64, 'must be base64')
    .transform((s) => Buffer.from(s, 'base64')),
  z.object({ type: z.literal('Buffer'), data: z.array(z.number().int().min(0).max(255)) }).transform((b) => Buffer.from(b.data)),
]);

const attachmentField = z.object({
  filename: z.string().min(1).max(255).refine(noLineBreaks, NO_LINE_BREAKS),
  content: contentField,
  contentType: z
    .string()
    .regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a MIME type such as "application/pdf"')
    // A multipart needs a boundary and parts of its own (RFC 2046 §5.1.1): an attachment's bytes cannot be one.
    .refine((type) => !/^multipart\//i.test(type), 'cannot be multipart/*: an attachment is one part; attach the file as application/octet-stream, or as message/rfc822 for a whole message')
    .optional(),
  // A Content-ID is a msg-id (RFC 2392), in a header that is ASCII without SMTPUTF8 (RFC 5322 §2.2):
  // non-ASCII went out as raw 8-bit bytes there, and control characters are dropped by nodemailer,
  // so the part no longer matched the HTML's cid: reference.
  contentId: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[!-;=?-~]+$/, 'must be printable ASCII without spaces or angle brackets')
    .optional(),
});

const tagField = z.object({
  name: z.string().regex(TAG_PART, 'may contain only ASCII letters, digits, "_" and "-" (1–256 characters)'),
  value: z.string().regex(TAG_PART, 'may contain only ASCII letters, digits, "_" and "-" (1–256 characters)'),
});

/** One send, as `POST /emails` takes it and each item of `POST /emails/batch`. */
export const sendEmailSchema = z
  .object({
    from: mailboxField,
    to: mailboxListField,
    cc: mailboxListField.optional(),
    bcc: mailboxListField.optional(),
    replyTo: mailboxListField.optional(),
    subject: z.string().max(998).refine(noLineBreaks, NO_LINE_BREAKS).refine(fitsHeaderLine, TOO_LONG_UNBROKEN),
    html: z.string().optional(),
    text: z.string().optional(),
    headers: headersField.optional(),
    attachments: z.array(attachmentField).max(100).optional(),
    tags: z.array(tagField).max(MAX_TAGS, `at most ${MAX_TAGS} tags`).optional(),
    scheduledAt: dateTimeField('must be an ISO 8601 date-time, such as "2026-12-01T09:00:00Z"')
      .transform((s) => new Date(s))
      .refine((d) => d.getTime() > Date.now(), 'must be in the future')
      .optional(),
    trackOpens: z.boolean().optional(),
    trackClicks: z.boolean().optional(),
  })
  .superRefine((send, ctx) => {
    if (send.html === undefined && send.text === undefined) {
      ctx.addIssue({ code: 'custom', path: ['html'], message: 'html or text is required', params: { missing: true } });
    }
    const total = send.to.length + (send.cc?.length ?? 0) + (send.bcc?.length ?? 0);
    if (total > MAX_RECIPIENTS) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: `to, cc and bcc together may hold at most ${MAX_RECIPIENTS} addresses (got ${total})` });
    }
    if (send.to.length === 0) ctx.addIssue({ code: 'custom', path: ['to'], message: 'needs at least one address' });
  })
  .meta({ id: 'SendEmailRequest' });

export type SendEmail = z.output<typeof sendEmailSchema>;

const BATCH_SHAPE = 'must be a JSON array of 1–100 emails';
export const batchSchema = z
  .array(sendEmailSchema, BATCH_SHAPE)
  .min(1, `${BATCH_SHAPE}; this one is empty`)
  .max(100, `${BATCH_SHAPE}; this one holds more than 100`);
