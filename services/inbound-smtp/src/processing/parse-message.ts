import type { ReceivedAddress, ParsedAttachment, ReceivedContent } from '@mailroom/db';
import type { AddressObject, EmailAddress, HeaderLines, Headers } from 'mailparser';
import { hasComment, withoutAddressComments } from './address-comments';
import { withoutObsoleteRoute } from './address-route';
import { terminalFilename } from './attachment-filename';
import { hasRelabelledWord, withKnownCharsets } from './charset-labels';
import { hasNonUtf8Bytes, headerBytesText, withoutFoldsInCharacters } from './header-bytes';
import {
  decodeHeaderLines,
  decodeWordsSafely,
  firstHeader,
  withBodyWhereFieldsEnd,
  type HeaderField,
  inReplyToId,
  messageIdList,
  parseDateHeader,
  singleMessageId,
} from './message-headers';
import { contentIdOf } from './msg-id';
import { type MimeAttachment, type MimeMessage, readMime } from './read-mime';
import { textReplyOf } from './text-reply';

/** A parsed message (DESIGN §7) and, when mailparser failed on it, why. */
export interface ParsedMessage extends ReceivedContent {
  /** Set when the body could not be parsed and only the headers were kept. */
  parseError: string | null;
}

/**
 * Parses a raw message into the fields of DESIGN §7. Never throws: when mailparser fails on
 * the body, the headers are parsed alone and `parseError` says why. Strings are cleaned of
 * what PostgreSQL cannot store (NUL characters, unpaired surrogates).
 */
export async function parseMessage(stored: Buffer): Promise<ParsedMessage> {
  const raw = withBodyWhereFieldsEnd(withoutByteOrderMark(stored));
  try {
    return shape(await withAddressesReread(await readMime(raw)), null);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    try {
      return shape(await withAddressesReread(await readMime(headerBlock(raw))), reason);
    } catch {
      return { ...EMPTY_CONTENT, parseError: reason };
    }
  }
}

/** Nothing parsed: what a message whose content cannot be read is stored with. */
export const EMPTY_CONTENT: Readonly<ReceivedContent> = {
  from: null,
  to: [],
  cc: [],
  replyTo: [],
  subject: null,
  text: null,
  html: null,
  textReply: null,
  headers: [],
  messageId: null,
  inReplyTo: null,
  references: [],
  date: null,
  attachments: [],
};

/**
 * The message without a leading UTF-8 byte order mark, which some Windows tools write before an
 * .eml's first header: RFC 5322 has none, and left in place it would become part of the first
 * header's name (a `From` no longer found). The stored bytes keep it.
 */
function withoutByteOrderMark(raw: Buffer): Buffer {
  return raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf ? raw.subarray(3) : raw;
}

const ADDRESS_FIELDS = new Set(['from', 'to', 'cc', 'reply-to']);

/**
 * The message with its address fields parsed again when any has a comment (taken out, see
 * withoutAddressComments), an encoded word in a charset mailparser knows by another name (see
 * withKnownCharsets), 8-bit bytes that are not UTF-8 (given as the UTF-8 of what
 * headerBytesText reads; mailparser would make them U+FFFD or Latin-1) or a fold inside a UTF-8
 * character (taken out, see withoutFoldsInCharacters): mailparser reads the rewritten fields,
 * groups and encoded words included, and the headers list keeps them as written. Also when From
 * or Reply-To is repeated: mailparser keeps the last of a single field, but the first counts, as
 * for every single header, and as DMARC judges the first From (a second one, appended by a
 * forger below the signed first, never becomes `from`).
 */
async function withAddressesReread(mime: MimeMessage): Promise<MimeMessage> {
  const fields = firstOfSingleFields(addressFields(mime.headerLines));
  const repeated = fields.length < mime.headerLines.filter(({ key }) => ADDRESS_FIELDS.has(key)).length;
  if (!repeated && !fields.some((f) => f.foldInCharacter || hasComment(f.value) || hasRelabelledWord(f.value) || hasNonUtf8Bytes(f.value))) return mime;
  const rewrite = (written: string) => {
    const value = hasNonUtf8Bytes(written) ? Buffer.from(headerBytesText(written), 'utf8').toString('binary') : written;
    return withKnownCharsets(hasComment(value) ? withoutAddressComments(value) : value);
  };
  const block = fields.map((f) => `${f.name}: ${rewrite(f.value)}\r\n`).join('');
  const reread = await readMime(Buffer.from(`${block}\r\n`, 'binary'));
  const headers: Headers = new Map(mime.headers);
  for (const key of ADDRESS_FIELDS) {
    const value = reread.headers.get(key);
    if (value === undefined) headers.delete(key);
    else headers.set(key, value);
  }
  return { ...mime, headers };
}

// Address fields RFC 5322 §3.6 allows once, of which only the first is read. To and Cc, also
// allowed once, add up when repeated: a recipient list split in two loses no one.
const SINGLE_ADDRESS_FIELDS = new Set(['from', 'reply-to']);

/** The fields without the repeats of From and Reply-To after their first. */
function firstOfSingleFields<T extends { name: string }>(fields: readonly T[]): T[] {
  const seen = new Set<string>();
  return fields.filter((f) => {
    const key = f.name.toLowerCase();
    if (!SINGLE_ADDRESS_FIELDS.has(key)) return true;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** From, To, Cc and Reply-To as written (binary strings), unfolded, in order; `foldInCharacter` when a fold inside a character was taken out. */
function addressFields(lines: HeaderLines): { name: string; value: string; foldInCharacter: boolean }[] {
  return lines
    .filter(({ key }) => ADDRESS_FIELDS.has(key))
    .map(({ line }) => {
      const repaired = withoutFoldsInCharacters(line);
      const unfolded = repaired.replace(/\r?\n(?=[ \t])/g, '');
      const colon = unfolded.indexOf(':');
      return { name: unfolded.slice(0, colon).trim(), value: unfolded.slice(colon + 1), foldInCharacter: repaired !== line };
    });
}

/** The header section alone (up to the first empty line), for a second try without the body. */
function headerBlock(raw: Buffer): Buffer {
  const end = raw.indexOf('\r\n\r\n');
  const lfEnd = raw.indexOf('\n\n');
  const cut = end >= 0 ? end + 2 : lfEnd >= 0 ? lfEnd + 1 : raw.length;
  return Buffer.concat([raw.subarray(0, cut), Buffer.from('\r\n')]);
}

function shape(mime: MimeMessage, parseError: string | null): ParsedMessage {
  const headers: HeaderField[] = decodeHeaderLines(mime.headerLines).map((h) => ({ name: clean(h.name), value: clean(h.value) }));
  const text = mime.hasTextPart && mime.text !== undefined ? clean(mime.text) : null;
  const html = mime.html === undefined ? null : clean(mime.html);
  const subject = firstHeader(headers, 'subject');
  return {
    from: addresses(mime.headers.get('from'))[0] ?? null,
    to: addresses(mime.headers.get('to')),
    cc: addresses(mime.headers.get('cc')),
    replyTo: addresses(mime.headers.get('reply-to')),
    subject: subject === undefined ? null : subject,
    text,
    html,
    textReply: nullableClean(textReplyOf(text, html)),
    headers,
    messageId: singleMessageId(firstHeader(headers, 'message-id')),
    inReplyTo: inReplyToId(firstHeader(headers, 'in-reply-to')),
    references: messageIdList(firstHeader(headers, 'references')),
    date: parseDateHeader(firstHeader(headers, 'date')),
    attachments: mime.attachments.map(attachment),
    parseError,
  };
}

/** Mailboxes kept of one address field (To, Cc, Reply-To), in order. */
export const MAX_ADDRESSES = 1_000;

/**
 * Every mailbox of an address header (all of them when it is repeated), groups flattened, at most
 * MAX_ADDRESSES. A mailbox with a name but no address (`MAILER DAEMON <>`, a bare `foo` old
 * mailers wrote for a local user) is kept with the address '' so that its name is not lost; one
 * with neither (`<>`) is left out.
 */
function addresses(value: unknown): ReceivedAddress[] {
  const objects = (Array.isArray(value) ? value : value === undefined ? [] : [value]) as AddressObject[];
  const out: ReceivedAddress[] = [];
  const visit = (entry: EmailAddress) => {
    if (out.length >= MAX_ADDRESSES) return;
    const name = entry.name ? clean(decodeWordsSafely(entry.name)) : null;
    if (entry.group) entry.group.forEach(visit);
    else if (entry.address || name) out.push({ address: entry.address ? clean(withoutObsoleteRoute(entry.address)) : '', name });
  };
  for (const object of objects) for (const entry of object?.value ?? []) visit(entry);
  return out;
}

function attachment(part: MimeAttachment): ParsedAttachment {
  const cid = contentIdOf(part.contentId);
  return {
    filename: part.filename ? terminalFilename(clean(decodeWordsSafely(part.filename))) : null,
    contentType: clean(declaredType(part) || 'application/octet-stream'),
    size: part.content.length,
    contentId: cid ? clean(cid) : null,
    disposition: part.contentDisposition ? clean(part.contentDisposition) : null,
    content: part.content,
  };
}

/**
 * The part's content type as its Content-Type header declares it. mailparser replaces a declared
 * `application/octet-stream` with a guess from the filename (`page.html` becomes text/html,
 * `logo.svg` image/svg+xml); the declaration is what the sender wrote, what other parsers
 * report, and what an application re-serving the part should rely on.
 */
function declaredType(part: MimeAttachment): string | undefined {
  const declared = (part.headers?.get('content-type') as { value?: unknown } | undefined)?.value;
  return declared === 'application/octet-stream' ? declared : part.contentType;
}

// NUL is refused by PostgreSQL text and jsonb; an unpaired surrogate by jsonb.
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function clean(value: string): string {
  return value.replaceAll('\u0000', '').replace(UNPAIRED_SURROGATE, '\uFFFD');
}

function nullableClean(value: string | null): string | null {
  return value === null ? null : clean(value);
}
