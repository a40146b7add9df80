import { ERROR_NAMES } from '@mailroom/core';
import { z } from 'zod';

/** The body of every failed request (DESIGN §4 "Errors"). */
export const errorSchema = z
  .object({
    name: z.enum(ERROR_NAMES as [string, ...string[]]).meta({ description: 'Machine-readable error name.' }),
    message: z.string().meta({ description: 'Human-readable explanation.' }),
    statusCode: z.number().int().meta({ description: 'The HTTP status code.' }),
  })
  .meta({ id: 'Error' });

export const timestamp = z.string().meta({ format: 'date-time', example: '2026-11-21T10:00:00.000Z' });

/** `{id}` in a path. Lookups of malformed ids simply find nothing (404). */
export const idParams = z.object({ id: z.string().min(1).max(64) });

export const deletedSchema = (object: string) =>
  z.object({ object: z.literal(object), id: z.string(), deleted: z.literal(true) });

export const listSchema = <T extends z.ZodType>(item: T) =>
  z.object({ object: z.literal('list'), data: z.array(item), hasMore: z.boolean() });

/** Trimmed, 1–100 characters: names of projects and keys. */
export const nameField = z.string().trim().min(1).max(100);

/** Case-folded and trimmed, so one person cannot sign up twice. */
export const emailField = z.string().trim().max(254).pipe(z.email()).transform((e) => e.toLowerCase());

export const passwordField = z.string().min(8).max(256);

// RFC 3339's date-time (ISO 8601's profile of it): seconds and their fraction optional, `T` or a
// space between date and time, either case for `T` and `Z`, an offset with or without its colon.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})$/;

/** The instant an RFC 3339 date-time names, or null when it is none (a day the month lacks, hour 24, minute 60). */
export function parseDateTime(text: string): Date | null {
  const m = DATE_TIME.exec(text.trim());
  if (!m) return null;
  const [, year, month, day, hour, minute, second = '00', fraction = '', zone = 'Z'] = m;
  const offset = /^[zZ]$/.test(zone) ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const wall = new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}Z`);
  // Date would roll 31 February over into March, and refuses only some of such days.
  if (Number.isNaN(wall.getTime()) || wall.getUTCDate() !== Number(day) || wall.getUTCMonth() + 1 !== Number(month) || Number(second) > 59) return null;
  const at = new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}${fraction.slice(0, 4)}${offset}`);
  return Number.isNaN(at.getTime()) ? null : at;
}

/**
 * The instants the API takes: UTC years 0001 to 9999, the ones both ISO 8601's four-digit years
 * and PostgreSQL's timestamps write (JavaScript writes year 10000 as `+010000-…`, which
 * PostgreSQL refuses, and PostgreSQL has no year 0).
 */
export const EARLIEST_INSTANT_MS = Date.parse('0001-01-01T00:00:00Z');
export const LATEST_INSTANT_MS = Date.parse('9999-12-31T23:59:59.999Z');
const OUT_OF_RANGE = 'must be between 0001-01-01 and 9999-12-31 in UTC';

/** An ISO 8601 (RFC 3339) date-time field, given on as its ISO string in UTC (`2026-11-20T08:00:00.000Z`). */
export const dateTimeField = (message = 'must be an ISO 8601 date and time, such as "2026-11-20T08:00:00Z"') =>
  z
    .string()
    .transform((text, ctx) => {
      const at = parseDateTime(text);
      const ms = at?.getTime() ?? Number.NaN;
      if (at !== null && ms >= EARLIEST_INSTANT_MS && ms <= LATEST_INSTANT_MS) return at.toISOString();
      ctx.addIssue({ code: 'custom', message: at === null ? message : OUT_OF_RANGE, input: text });
      return z.NEVER;
    })
    .meta({ format: 'date-time' });
