import { type AttachmentStream, type HeaderLines, type Headers, MailParser, type MessageText } from 'mailparser';

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
const OPTIONS = { skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true, skipImageLinks: true, keepDeliveryStatus: true };

/**
 * Runs mailparser's streaming parser over a whole message, as its `simpleParser` does, but
 * leaves HTML untouched and says whether a text part existed. Rejects when mailparser does.
 */
export function readMime(raw: Buffer): Promise<MimeMessage> {
  return new Promise((resolve, reject) => {
    const parser = new MailParser(OPTIONS);
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
      resolve(message);
    });
    parser.end(raw);
  });
}
