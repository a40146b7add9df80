/// <reference path="./untyped-modules.d.ts" />
import libmime from 'libmime';
import { withKnownCharsets } from './charset-labels';
import { parseRfc5322Date } from './date-header';
import { headerBytesText, withoutFoldsInCharacters } from './header-bytes';
import { msgIdTokens } from './msg-id';

/** One header as DESIGN §7 lists them: in message order, duplicates kept. */
export interface HeaderField {
  name: string;
  value: string;
}

/**
 * Header lines (as mailparser keeps them: "Name: value", folding included, one char per byte)
 * to `{name, value}`: the name as written, the value unfolded (a fold inside a UTF-8 character
 * taken out, see withoutFoldsInCharacters), trimmed, 8-bit bytes read as UTF-8 (as
 * Windows-1252 when they are not UTF-8, see headerBytesText) and RFC 2047 encoded
 * words decoded. A line without a colon keeps its text as the name. An empty line is no
 * header: mailparser gives one for a message without a header section.
 */
export function decodeHeaderLines(lines: readonly { key: string; line: string }[]): HeaderField[] {
  return lines.filter(({ line }) => line.trim() !== '').map(({ line: written }) => {
    const line = withoutFoldsInCharacters(written);
    const colon = line.indexOf(':');
    const name = headerBytesText((colon < 0 ? line : line.slice(0, colon)).trim());
    let value = '';
    try {
      value = headerBytesText(libmime.decodeHeader(line).value.trim());
    } catch {
      value = headerBytesText(line.slice(colon + 1).replace(/\r?\n(?=[ \t])/g, '').trim());
    }
    return { name, value: decodeWordsSafely(value) };
  });
}

/** The first header of that name (case-insensitive), or undefined. */
export function firstHeader(headers: readonly HeaderField[], name: string): string | undefined {
  const wanted = name.toLowerCase();
  return headers.find((h) => h.name.toLowerCase() === wanted)?.value;
}

/**
 * RFC 2047 decoding that keeps the text as it was when libmime fails on it, and reads charset
 * labels libmime does not know as charset-labels says (libmime would read them as UTF-8).
 */
export function decodeWordsSafely(value: string): string {
  try {
    return libmime.decodeWords(withKnownCharsets(value));
  } catch {
    return value;
  }
}


/**
 * A Date header to a Date; null when missing or unreadable (mailparser would say "now", which
 * is a lie the API must not tell). Comments such as "(UTC)" are ignored. Read as RFC 5322 writes
 * dates (see parseRfc5322Date); a shape it does not know is left to JavaScript's parser, and
 * then too a date without a zone is read as UTC, never in the server's time zone.
 */
export function parseDateHeader(value: string | undefined): Date | null {
  if (value === undefined) return null;
  const cleaned = value.replace(/\([^()]*\)/g, ' ').replace(/\s+/g, ' ').trim();
  if (cleaned === '') return null;
  const strict = parseRfc5322Date(cleaned);
  if (strict !== undefined) return strict;
  const date = new Date(cleaned);
  if (Number.isNaN(date.getTime())) return null;
  const read = HAS_ZONE.test(cleaned) ? date : new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  // Postgres timestamps and JSON consumers both cope with years 1..9999.
  return read.getUTCFullYear() < 1 || read.getUTCFullYear() > 9999 ? null : read;
}

// A zone JavaScript's parser would apply: a name it knows or a numeric offset.
const HAS_ZONE = /\b(?:GMT|UTC|UT|Z|[ECMP][SD]T)\b|[+-]\d{2}:?\d{2}\b/i;

/** The message ids in a References or In-Reply-To value, angle brackets kept, in order. */
export function messageIdList(value: string | undefined): string[] {
  if (value === undefined) return [];
  const bracketed = value.match(/<[^<>\s]*>/g);
  if (bracketed) return bracketed;
  return value.split(/[\s,]+/).filter((part) => part !== '');
}

/**
 * A Message-ID value as in the header: trimmed, null when empty, and a single bracketed id
 * without the comments around it (RFC 5322 §3.6.4: msg-id is [CFWS] "<" id ">" [CFWS], so
 * `(c) <id@x> (c)` is `<id@x>`). Anything else (an id without brackets, words beside it) stays
 * as written.
 */
export function singleMessageId(value: string | undefined): string | null {
  const trimmed = value?.trim() ?? '';
  if (trimmed === '') return null;
  const { ids, words } = msgIdTokens(trimmed);
  return ids.length === 1 && words.length === 0 ? (ids[0] as string) : trimmed;
}

/**
 * An In-Reply-To value as singleMessageId reads a Message-ID, but with the words of the obsolete
 * phrase RFC 5322 §4.5.4 allows beside the id left out too, as they are no id: `Your message of
 * "Mon, 30 Nov 2026" <old@x>` is `<old@x>`. Several ids stay as written.
 */
export function inReplyToId(value: string | undefined): string | null {
  const trimmed = value?.trim() ?? '';
  if (trimmed === '') return null;
  const { ids } = msgIdTokens(trimmed);
  return ids.length === 1 ? (ids[0] as string) : trimmed;
}

/** A message split at its header section: each header field's raw bytes (folding and line end included) and the body. */
export interface SplitMessage {
  fields: Buffer[];
  body: Buffer;
}

/**
 * Splits a raw message into its header fields and body in one pass (the header section ends at
 * the first empty line, CRLF or bare LF). A line that does not start with a space or tab starts
 * a new field, with or without a colon.
 */
export function splitHeaderFields(raw: Buffer): SplitMessage {
  const fields: Buffer[] = [];
  let fieldStart = 0;
  let at = 0;
  while (at < raw.length) {
    const lf = raw.indexOf(0x0a, at);
    const next = lf < 0 ? raw.length : lf + 1;
    const empty = next - at <= 2 && (raw[at] === 0x0a || (raw[at] === 0x0d && raw[at + 1] === 0x0a));
    if (empty) {
      if (at > fieldStart) fields.push(raw.subarray(fieldStart, at));
      return { fields, body: raw.subarray(next) };
    }
    const continuation = raw[at] === 0x20 || raw[at] === 0x09;
    if (!continuation && at > fieldStart) {
      fields.push(raw.subarray(fieldStart, at));
      fieldStart = at;
    }
    at = next;
  }
  if (at > fieldStart) fields.push(raw.subarray(fieldStart, at));
  return { fields, body: Buffer.alloc(0) };
}

// The start of a header field (RFC 5322 §3.6.8: a name of printable ASCII but the colon, then
// the colon, with white space before it allowed as §4.5 allows), on a line read as Latin-1.
const FIELD_START = /^[\x21-\x39\x3b-\x7e]+[ \t]*:/;

/** Whether a line (its first 1,000 bytes read) starts a header field: a name, then a colon. */
export function startsHeaderField(line: Buffer): boolean {
  return FIELD_START.test(line.toString('latin1', 0, Math.min(line.length, 1_000)));
}

/**
 * The message as it is parsed when its body starts without the empty line that should come
 * before it: where the header section cannot be one, an empty line is put before the first line
 * that is no header field, so that line and the rest are the body, as Python's email package and
 * Postfix read them. That is when the message's first line is no field (it has no header section:
 * `just a body⏎line 2`), or when no empty line comes at all (`Subject: s⏎hello`, its text after
 * its fields). A line without a colon among fields that an empty line follows stays a header of
 * its own, so the fields after it are still read. A first line `From ` (an mbox separator) is
 * left to the parser. The stored message keeps its bytes.
 */
export function withBodyWhereFieldsEnd(raw: Buffer): Buffer {
  let firstBad = -1;
  for (let at = 0; at < raw.length; ) {
    const lf = raw.indexOf(0x0a, at);
    const next = lf < 0 ? raw.length : lf + 1;
    // An empty line: the header section ends as it should.
    if (raw[at] === 0x0a || (raw[at] === 0x0d && raw[at + 1] === 0x0a)) return raw;
    const continuation = raw[at] === 0x20 || raw[at] === 0x09;
    if (!continuation && firstBad < 0 && !startsHeaderField(raw.subarray(at, next))) {
      if (at > 0) firstBad = at;
      else if (!raw.subarray(0, 5).equals(MBOX_SEPARATOR)) return Buffer.concat([CRLF, raw]);
    }
    at = next;
  }
  return firstBad < 0 ? raw : Buffer.concat([raw.subarray(0, firstBad), CRLF, raw.subarray(firstBad)]);
}

const CRLF = Buffer.from('\r\n');
const MBOX_SEPARATOR = Buffer.from('From ');

/** The lower-cased name of a raw header field ('' when it has no colon). */
export function fieldName(field: Buffer): string {
  const colon = field.indexOf(0x3a);
  const lf = field.indexOf(0x0a);
  if (colon < 0 || (lf >= 0 && colon > lf)) return '';
  return field.subarray(0, colon).toString('latin1').trim().toLowerCase();
}

/** Physical lines in a raw header field. */
export function fieldLines(field: Buffer): number {
  let lines = 0;
  for (let at = field.indexOf(0x0a); at >= 0; at = field.indexOf(0x0a, at + 1)) lines += 1;
  return Math.max(lines, 1);
}

/** A raw field cut to at most `max` bytes, at a line end when one is inside, and ended with CRLF. */
export function cutField(field: Buffer, max: number): Buffer {
  if (field.length <= max) return field;
  const lastLf = field.subarray(0, max).lastIndexOf(0x0a);
  const kept = lastLf > 0 ? field.subarray(0, lastLf + 1) : Buffer.concat([field.subarray(0, max - 2), Buffer.from('\r\n')]);
  return kept;
}
