/// <reference path="./untyped-modules.d.ts" />
import libmime from 'libmime';

/** One header as DESIGN §7 lists them: in message order, duplicates kept. */
export interface HeaderField {
  name: string;
  value: string;
}

/**
 * Header lines (as mailparser keeps them: "Name: value", folding included, one char per byte)
 * to `{name, value}`: the name as written, the value unfolded, trimmed, 8-bit bytes read as
 * UTF-8 and RFC 2047 encoded words decoded. A line without a colon keeps its text as the name.
 */
export function decodeHeaderLines(lines: readonly { key: string; line: string }[]): HeaderField[] {
  return lines.map(({ line }) => {
    const colon = line.indexOf(':');
    const name = utf8((colon < 0 ? line : line.slice(0, colon)).trim());
    let value = '';
    try {
      value = utf8(libmime.decodeHeader(line).value.trim());
    } catch {
      value = utf8(line.slice(colon + 1).replace(/\r?\n(?=[ \t])/g, '').trim());
    }
    return { name, value: decodeWordsSafely(value) };
  });
}

/** The first header of that name (case-insensitive), or undefined. */
export function firstHeader(headers: readonly HeaderField[], name: string): string | undefined {
  const wanted = name.toLowerCase();
  return headers.find((h) => h.name.toLowerCase() === wanted)?.value;
}

/** RFC 2047 decoding that keeps the text as it was when a charset is unknown or a word is broken. */
export function decodeWordsSafely(value: string): string {
  try {
    return libmime.decodeWords(value);
  } catch {
    return value;
  }
}

const utf8 = (binary: string) => Buffer.from(binary, 'binary').toString('utf8');

/**
 * A Date header to a Date; null when missing or unreadable (mailparser would say "now", which
 * is a lie the API must not tell). Comments such as "(UTC)" are ignored.
 */
export function parseDateHeader(value: string | undefined): Date | null {
  if (value === undefined) return null;
  const cleaned = value.replace(/\([^()]*\)/g, ' ').replace(/\s+/g, ' ').trim();
  if (cleaned === '') return null;
  const date = new Date(cleaned);
  const time = date.getTime();
  // Postgres timestamps and JSON consumers both cope with years 1..9999.
  if (Number.isNaN(time) || date.getUTCFullYear() < 1 || date.getUTCFullYear() > 9999) return null;
  return date;
}

/** The message ids in a References or In-Reply-To value, angle brackets kept, in order. */
export function messageIdList(value: string | undefined): string[] {
  if (value === undefined) return [];
  const bracketed = value.match(/<[^<>\s]*>/g);
  if (bracketed) return bracketed;
  return value.split(/[\s,]+/).filter((part) => part !== '');
}

/** A Message-ID or In-Reply-To value as in the header: trimmed, null when empty. */
export function singleMessageId(value: string | undefined): string | null {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}
