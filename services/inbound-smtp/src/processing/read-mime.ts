import type { AttachmentStream, HeaderLines, Headers, MessageText } from 'mailparser';
import { cutField, fieldName, splitHeaderFields } from './message-headers';
import { MimeParser } from './mime-parser';

/** An attachment as mailparser gives it, its content read into memory. */
export type MimeAttachment = Omit<AttachmentStream, 'content'> & { content: Buffer };

/** What mailparser makes of a message, before it is shaped into DESIGN §7's fields. */
export interface MimeMessage {
  headers: Headers;
  headerLines: HeaderLines;
  text: string | undefined;
  html: string | undefined;
  /** Whether the message has a text/plain part (mailparser fills `text` from HTML otherwise). */
  hasTextPart: boolean;
  attachments: MimeAttachment[];
}

// HTML stays as sent (cid: links included: the API serves parts by Content-ID) and no text is
// made from it here: parse-message derives text for textReply only, within its own limits.
// A message/rfc822 part (a forward "as attachment") is always one attachment, its exact bytes:
// mailsplit would otherwise open one marked `inline` and pour its headers, text and attachments
// into this message's own, as if the forwarder had written them.
const OPTIONS = {
  skipHtmlToText: true,
  skipTextToHtml: true,
  skipTextLinks: true,
  skipImageLinks: true,
  keepDeliveryStatus: true,
  ignoreEmbedded: true,
};

/**
 * Runs mailparser's streaming parser (as MimeParser amends it) over a whole message, as its
 * `simpleParser` does, but leaves HTML untouched and says whether a text part existed. Rejects
 * when mailparser does. A multipart whose boundary never came (found only once the message is
 * read) is read again, as text/plain (see withDefaultContentTypes): so only such a message is
 * read twice.
 */
export async function readMime(raw: Buffer): Promise<MimeMessage> {
  const first = await readOnce(raw, new Set());
  return first.unsplit.size === 0 ? first.message : (await readOnce(raw, first.unsplit)).message;
}

/** One reading, with the multiparts numbered in `asText` read as text/plain; `unsplit` the numbers of those whose boundary never came. */
function readOnce(raw: Buffer, asText: ReadonlySet<number>): Promise<{ message: MimeMessage; unsplit: Set<number> }> {
  return new Promise((resolve, reject) => {
    const parser = new MimeParser(OPTIONS, asText);
    const message: MimeMessage = { headers: new Map(), headerLines: [], text: undefined, html: undefined, hasTextPart: false, attachments: [] };
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      parser.destroy();
      reject(err);
    };
    parser.on('error', fail);
    parser.on('headers', (headers: Headers) => {
      message.headers = headers;
      message.headerLines = (parser as unknown as { headerLines: HeaderLines }).headerLines ?? [];
    });
    let reading = false;
    const read = () => {
      reading = true;
      for (;;) {
        const data = parser.read() as (AttachmentStream & { release(): void }) | MessageText | null;
        if (data === null) break;
        if (data.type === 'text') {
          message.text = data.text;
          message.html = typeof data.html === 'string' ? data.html : undefined;
          continue;
        }
        const stream = data.content as unknown as NodeJS.ReadableStream;
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('error', fail);
        stream.on('end', () => {
          message.attachments.push({ ...data, content: Buffer.concat(chunks) });
          data.release();
          read();
        });
        return;
      }
      reading = false;
    };
    parser.on('readable', () => {
      if (!reading) read();
    });
    parser.on('end', () => {
      if (settled) return;
      settled = true;
      // mailparser's own flag: set when a text/plain (or delivery-status) part was seen.
      message.hasTextPart = (parser as unknown as { hasText: boolean }).hasText === true;
      resolve({ message, unsplit: parser.unsplitMultiparts() });
    });
    parser.end(boundHeaderSection(raw));
  });
}

// What mailparser is shown of a message's header section (the raw message is stored whole).
// mailparser refuses a header section over 1 MiB outright, and long folded fields cost every
// reader: so the parsed headers are the first MAX_PARSED_FIELDS fields within
// MAX_PARSED_HEADER_BYTES, each cut to MAX_PARSED_FIELD_BYTES, plus the fields the API's parsed
// values come from wherever they are, within twice those numbers.
export const MAX_PARSED_FIELDS = 1_000;
export const MAX_PARSED_FIELD_BYTES = 64 * 1024;
export const MAX_PARSED_HEADER_BYTES = 256 * 1024;
const ESSENTIAL_FIELDS = new Set([
  'from',
  'to',
  'cc',
  'reply-to',
  'subject',
  'message-id',
  'in-reply-to',
  'references',
  'date',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'content-disposition',
]);

/** The message as parsed: the raw bytes when the header section is within bounds, else a copy with a bounded one. */
export function boundHeaderSection(raw: Buffer): Buffer {
  const { fields, body } = splitHeaderFields(raw);
  const total = raw.length - body.length;
  if (fields.length <= MAX_PARSED_FIELDS && total <= MAX_PARSED_HEADER_BYTES && fields.every((f) => f.length <= MAX_PARSED_FIELD_BYTES)) return raw;
  const kept: Buffer[] = [];
  let bytes = 0;
  for (const field of fields) {
    const cut = cutField(field, MAX_PARSED_FIELD_BYTES);
    const essential = ESSENTIAL_FIELDS.has(fieldName(field));
    const room = essential ? 2 * MAX_PARSED_HEADER_BYTES : MAX_PARSED_HEADER_BYTES;
    if (kept.length < (essential ? 2 : 1) * MAX_PARSED_FIELDS && bytes + cut.length <= room) {
      kept.push(cut);
      bytes += cut.length;
    }
  }
  return Buffer.concat([...kept, Buffer.from('\r\n'), body]);
}
