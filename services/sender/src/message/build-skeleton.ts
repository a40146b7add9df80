import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { isStructuredHeader } from '@mailroom/core';
import * as base64 from 'nodemailer/lib/base64';
import MailComposer from 'nodemailer/lib/mail-composer';
import { detectMimeType, encodeWord } from 'nodemailer/lib/mime-funcs';
import MimeNode from 'nodemailer/lib/mime-node';
import * as qp from 'nodemailer/lib/qp';
import type { RawMessage } from '../delivery/raw-message';
import type { OutgoingAttachment, OutgoingEmail } from '../send-store';
import { ENCODED_WORD_LOOKALIKE, useReadableAddressNames } from './address-names';

// Display names that read back as given (address-names.ts), for every message built here.
useReadableAddressNames();

/** The recipient a message is built for. */
export interface MessageRecipient {
  id: string;
  address: string;
}

/**
 * Gives the HTML part for one recipient from the email's HTML. The identity today; open and
 * click tracking will add its pixel and rewrite links per recipient here.
 */
export type PersonalizeHtml = (html: string, recipient: MessageRecipient) => string;

/** The HTML part as sent: the email's own HTML for every recipient. */
const sameHtmlForEveryone: PersonalizeHtml = (html) => html;

type HtmlEncoding = 'quoted-printable' | 'base64';

/**
 * The message of an email, compiled and encoded once per attempt: everything before the HTML
 * part's body (headers, text part) and everything after it (the rest of the tree, the
 * attachments) are two Buffers that every recipient's message shares, so a 20 MB message to
 * 50 recipients is held once; only the HTML body is encoded per recipient. Bcc is not written.
 */
export class MessageSkeleton {
  private sharedHtml: Promise<Buffer> | null = null;

  private constructor(
    /** The whole message when its HTML part does not vary (or it has none); else the bytes before the HTML body. */
    readonly prefix: Buffer,
    /** The bytes after the HTML body; empty without an HTML part. */
    readonly suffix: Buffer,
    private readonly html: { content: string; encoding: HtmlEncoding } | null,
  ) {}

  /**
   * Compiles `email` with `attachments` once; see {@link MessageSkeleton.forRecipient}. With
   * `varyHtml: false` (no recipient's HTML differs, e.g. no tracking) the message is compiled
   * whole, as it is sent, and every recipient gets that one Buffer: the split costs nothing then.
   */
  static async build(given: OutgoingEmail, attachments: readonly OutgoingAttachment[], options: { varyHtml?: boolean } = {}): Promise<MessageSkeleton> {
    // An empty HTML body is no HTML part (nodemailer cannot build an empty one); an empty text is an empty text part.
    const email = { ...given, html: given.html === '' ? null : withoutBareCr(given.html), text: given.text === null ? null : withCrlf(given.text) };
    if (email.html === null || options.varyHtml === false) {
      const html = email.html === null ? null : { content: withCrlf(email.html) };
      return new MessageSkeleton(await compile(email, attachments, html), Buffer.alloc(0), null);
    }
    // The transfer encoding is decided once, from the email's HTML, as nodemailer would; never
    // 7bit, since a recipient's HTML may have lines or characters 7bit cannot carry.
    const encoding: HtmlEncoding = transferEncodingOf(withCrlf(email.html)) === 'base64' ? 'base64' : 'quoted-printable';
    // A token that encodes to itself in both encodings (letters and digits, under one line).
    const placeholder = `mailroomhtml${randomBytes(12).toString('hex')}`;
    const marker = encoding === 'base64' ? Buffer.from(placeholder).toString('base64') : placeholder;
    const whole = await compile(email, attachments, { content: placeholder, contentTransferEncoding: encoding });
    const at = whole.indexOf(marker);
    if (at < 0 || whole.indexOf(marker, at + 1) >= 0) throw new Error('The HTML placeholder was not found exactly once in the compiled message');
    // subarray shares memory with `whole`: the skeleton holds the compiled message once.
    return new MessageSkeleton(whole.subarray(0, at), whole.subarray(at + marker.length), { content: email.html, encoding });
  }

  /**
   * The message for one recipient: the shared prefix, the HTML that `personalize` gives for
   * them encoded on its own, and the shared suffix.
   */
  async forRecipient(recipient: MessageRecipient, personalize: PersonalizeHtml = sameHtmlForEveryone): Promise<Buffer | RawMessage> {
    // Compiled whole (no HTML part, or none that varies): the one Buffer, as it is.
    if (this.html === null) return this.prefix;
    const { content, encoding } = this.html;
    const html = personalize(content, recipient);
    if (html !== content) return [this.prefix, await encode(html, encoding), this.suffix];
    // The same HTML for many recipients is encoded once.
    this.sharedHtml ??= encode(content, encoding);
    return [this.prefix, await this.sharedHtml, this.suffix];
  }
}

/**
 * The body with each bare CR made a line break (LF). nodemailer's encoders pass a bare CR
 * through, and SMTP turns it into CRLF on the wire (its DATA stream does), after the message
 * was DKIM-signed: the body hash would then no longer match what the recipient receives.
 */
function withoutBareCr(body: string | null): string | null {
  // One character for one, so offsets into the email's HTML (tracking's) still hold; one scan
  // in the usual case, a body without CR.
  return body?.includes('\r') ? body.replace(/\r(?!\n)/g, '\n') : body;
}

/**
 * A text body with every line break CRLF, the canonical form of text (RFC 2046 §4.1.1) that
 * RFC 2045 §6.8 requires before base64 encoding: nodemailer base64-encodes a body as it is given,
 * so a body written with LF arrived with bare LFs, which RFC 2046 forbids in text. (The 7bit and
 * quoted-printable encodings already arrive with CRLF.) For the HTML this is done when it is
 * encoded, after tracking, whose offsets are into the HTML as given.
 */
function withCrlf(body: string): string {
  return /\r(?!\n)|(?<!\r)\n/.test(body) ? body.replace(/\r\n|\r|\n/g, '\r\n') : body;
}

/**
 * An unstructured header value (the subject, a custom header) as nodemailer must get it for
 * receivers to read it as given. nodemailer writes ASCII text as it is, and passes what is a
 * valid encoded-word through (for callers that encode their own), so a user's literal
 * "=?utf-8?q?x?=" was decoded to "x" by every receiver, as RFC 2047 §6.2 has them do; and white
 * space at the start of a value reads as part of the separator after the colon, which
 * receivers drop. Such an ASCII value is given as encoded-words of the whole text, which
 * nodemailer passes through and receivers decode back exactly (RFC 2047 §5(1)). Non-ASCII
 * values are encoded whole by nodemailer already.
 */
export function unstructuredHeaderText(value: string): string {
  if (/[\u0080-\uffff]/.test(value) || !(/^[ \t]/.test(value) || ENCODED_WORD_LOOKALIKE.test(value))) return value;
  return encodeWord(value, 'Q', 52);
}

/** The custom headers, each unstructured value as in {@link unstructuredHeaderText}, a List-Id as in {@link listIdText}. */
function customHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, /^list-id$/i.test(name) ? listIdText(value) : isStructuredHeader(name) ? value : unstructuredHeaderText(value)]),
  );
}

// A List-Id value: an optional phrase, then the list's id in angle brackets (RFC 2919 §3).
const LIST_ID = /^(.*?)\s*(<[^<>]*>)\s*$/s;

/**
 * A List-Id with a non-ASCII phrase (`Acme — Neuigkeiten <news.acme.example>`), its phrase as
 * encoded-words and its `<id>` as written: nodemailer encodes a non-ASCII value whole, id
 * included, so a filter reading the id (RFC 2919: Gmail's, Outlook's, procmail's) found none.
 * An ASCII List-Id, or one without an id, is left as given.
 */
export function listIdText(value: string): string {
  const match = LIST_ID.exec(value);
  if (!match || !/[\u0080-\uffff]/.test(match[1] as string) || /[\u0080-\uffff]/.test(match[2] as string)) return value;
  const phrase = (match[1] as string).trim();
  return phrase === '' ? match[2] as string : `${encodeWord(phrase, 'Q', 52)} ${match[2]}`;
}

/**
 * The content of an attachment as it goes into the message. nodemailer writes a message/*
 * attachment (a forwarded `.eml`, by its content type or, without one, by its file name) as it
 * is given, with no transfer encoding, and SMTP's DATA stream turns each bare CR or LF in it into
 * CRLF on the wire, after the message was DKIM-signed: a bare CR counts as a character in the
 * signed body hash but arrives as a line break, so the signature failed at every receiver. Its
 * line breaks are made CRLF here, exactly as the wire would, so the signed bytes are the ones sent.
 */
/** `type`: attachmentType's answer for it. */
function attachmentContent(attachment: OutgoingAttachment, type: string | null): Buffer {
  return isMessageType(type ?? detectMimeType(attachment.filename)) ? withCrlfLineBreaks(attachment.content) : attachment.content;
}

const isMessageType = (type: string | null) => type !== null && /^message\//i.test(type);

/**
 * The type an attachment is sent as when it is not left to nodemailer's guess from its name (null):
 * its own.
 * A message/* part may not be base64 (RFC 2046 §5.2.1), so it goes as 7bit or 8bit, whose lines
 * are at most 998 octets (RFC 5322 §2.1.1): a forwarded message with a longer line goes as
 * application/octet-stream, base64, rather than be refused by receivers ("line too long").
 */
function attachmentType(attachment: OutgoingAttachment): string | null {
  const type = attachment.contentType ?? detectMimeType(attachment.filename);
  if (!isMessageType(type) || !hasLineOver(attachment.content, 998)) return attachment.contentType;
  return 'application/octet-stream';
}

const withContentType = (contentType: string | null) => (contentType ? { contentType } : {});

/** Whether a line of `content` (ended by LF, CR or CRLF) is longer than `max` octets. */
function hasLineOver(content: Buffer, max: number): boolean {
  let start = 0;
  for (let i = 0; i < content.length; i++) {
    const byte = content[i];
    if (byte !== 0x0a && byte !== 0x0d) continue;
    if (i - start > max) return true;
    start = i + 1;
  }
  return content.length - start > max;
}

/** `content` with each bare CR, bare LF (and CRLF) written CRLF; the same Buffer when there is none. */
function withCrlfLineBreaks(content: Buffer): Buffer {
  const text = content.toString('latin1'); // one byte for one character, so every byte survives
  return /\r(?!\n)|(?<!\r)\n/.test(text) ? Buffer.from(text.replace(/\r\n|\r|\n/g, '\r\n'), 'latin1') : content;
}

/** The transfer encoding nodemailer picks for a text/html part with this content. */
function transferEncodingOf(html: string): string | false {
  return new MimeNode('text/html; charset=utf-8').setContent(html).getTransferEncoding();
}

/** The HTML body encoded exactly as nodemailer encodes a part (its own encoders, 76-character lines). */
function encode(html: string, encoding: HtmlEncoding): Promise<Buffer> {
  const encoder = encoding === 'base64' ? new base64.Encoder() : new qp.Encoder();
  return buffer(Readable.from([Buffer.from(withCrlf(html), 'utf8')]).pipe(encoder));
}

function compile(
  email: OutgoingEmail,
  attachments: readonly OutgoingAttachment[],
  html: { content: string; contentTransferEncoding?: HtmlEncoding } | null,
): Promise<Buffer> {
  const composer = new MailComposer({
    from: email.from,
    to: email.to,
    cc: email.cc,
    replyTo: email.replyTo,
    subject: unstructuredHeaderText(email.subject),
    ...(html !== null ? { html } : {}),
    // An empty text is an empty text/plain part: nodemailer leaves out a text that is '' (falsy), not an empty Buffer.
    ...(email.text !== null ? { text: email.text === '' ? { content: Buffer.alloc(0) } : email.text } : {}),
    headers: customHeaders(email.headers),
    messageId: `<${email.messageId}>`,
    // The send's acceptance, not this attempt's: a retry is the same message (RFC 5322 §3.6.1).
    date: email.acceptedAt ?? new Date(),
    attachments: attachments.map((a) => {
      const type = attachmentType(a);
      return {
      filename: a.filename,
      content: attachmentContent(a, type),
      ...withContentType(type),
      // With a Content-ID it is shown in the HTML (inline); without one it is an attachment,
      // which nodemailer would otherwise make a forwarded message (message/rfc822) inline.
      ...(a.contentId ? { cid: a.contentId } : { contentDisposition: 'attachment' as const }),
      };
    }),
  });
  return new Promise((resolve, reject) => {
    composer.compile().build((err, message) => (err ? reject(err) : resolve(message)));
  });
}
