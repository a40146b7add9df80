/**
 * A Date header's value (comments already removed, spaces collapsed) as a time, read the way
 * RFC 5322 §3.3 and its obsolete forms (§4.3) write it, or null when it is not such a date.
 * Nothing depends on the server's time zone: a date without a zone, with a military zone other
 * than Z, or with a zone name nobody agrees on is read as `-0000` (UTC), as §4.3 says of RFC
 * 822's ambiguous zones; a day the month does not have (`31 Feb`), or a zone offset of a day or
 * more (`+2400`), is no date (null). Also reads
 * C's asctime and ISO 8601, which some software writes; undefined for any other shape.
 */
export function parseRfc5322Date(value: string): Date | null | undefined {
  const m = RFC_5322.exec(value);
  if (m) {
    const [, day, monthName, year, hour, minute, second, zone] = m as unknown as string[];
    return utcDate(fullYear(year as string), MONTHS[(monthName as string).slice(0, 3).toLowerCase()], Number(day), Number(hour), Number(minute), Number(second ?? 0), zone ?? '');
  }
  const asc = ASCTIME.exec(value);
  if (asc) {
    const [, monthName, day, hour, minute, second, year, zone] = asc as unknown as string[];
    return utcDate(Number(year), MONTHS[(monthName as string).slice(0, 3).toLowerCase()], Number(day), Number(hour), Number(minute), Number(second ?? 0), zone ?? '');
  }
  const iso = ISO_8601.exec(value);
  if (iso) {
    const [, year, month, day, hour, minute, second, zone] = iso as unknown as string[];
    return utcDate(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second ?? 0), zone ?? '');
  }
  return undefined;
}

// [day-of-week ","] day month year hour ":" minute [":" second] [zone]; dashes as some old mailers write them ("23-Nov-2026").
const RFC_5322 = /^(?:[a-z]{2,},?\s*)?(\d{1,2})[\s-]*([a-z]{3,})\.?[\s-]*(\d{2,4}),?\s+(\d{1,2}):(\d{1,2})(?::(\d{1,2}))?(?:\.\d+)?\s*(.*)$/i;
// C's asctime, as some scripts write it: "Mon Nov 23 10:00:00 2026", maybe with a zone after the year.
const ASCTIME = /^(?:[a-z]{2,},?\s+)?([a-z]{3,})\s+(\d{1,2})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s+(\d{4})\s*(.*)$/i;
// ISO 8601 with a time, as some applications write it: "2026-11-23T10:00:00Z", "2026-11-23 10:00:00 +01:00".
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})[T\s](\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?\s*(.*)$/i;

const MONTHS: Record<string, number | undefined> = { jan: 0, feb: 1, mar: 2, apr: 3, may: 4, jun: 5, jul: 6, aug: 7, sep: 8, oct: 9, nov: 10, dec: 11 };

// Zone names, minutes east of UTC: RFC 5322's obsolete ones (§4.3), then ones real mailers write
// that mean one offset only. Others (IST is India's, Ireland's or Israel's) are read as UTC.
const NAMED_ZONES: Record<string, number> = {
  UT: 0,
  UTC: 0,
  GMT: 0,
  Z: 0,
  EST: -300,
  EDT: -240,
  CST: -360,
  CDT: -300,
  MST: -420,
  MDT: -360,
  PST: -480,
  PDT: -420,
  WET: 0,
  WEST: 60,
  BST: 60,
  CET: 60,
  CEST: 120,
  MET: 60,
  MEST: 120,
  EET: 120,
  EEST: 180,
  MSK: 180,
  JST: 540,
  KST: 540,
  HKT: 480,
  SGT: 480,
  AWST: 480,
  ACST: 570,
  AEST: 600,
  AEDT: 660,
  NZST: 720,
  NZDT: 780,
  HST: -600,
  AKST: -540,
  AKDT: -480,
};

// "+0100", "-05:30", "GMT+0100", "UTC-5" (hours only), a name, or nothing.
const NUMERIC_ZONE = /^(?:(?:GMT|UTC|UT)\s*)?([+-])(\d{1,2}):?(\d{2})?\b/i;
const NAMED_ZONE = /^([a-z]{1,5})\b/i;

/** The zone's offset in minutes east of UTC, or null when it is malformed (`+0199`) or no zone can have it (`+2400`: a day or more). */
function zoneOffset(zone: string): number | null {
  const numeric = NUMERIC_ZONE.exec(zone);
  if (numeric) {
    const [, sign, hours, minutes] = numeric as unknown as string[];
    if (Number(hours) > 23 || Number(minutes ?? 0) > 59) return null;
    return (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes ?? 0));
  }
  const named = NAMED_ZONE.exec(zone);
  return named ? (NAMED_ZONES[(named[1] as string).toUpperCase()] ?? 0) : 0;
}

/** Two-digit years are 1950–2049, three-digit ones counted from 1900 (RFC 5322 §4.3). */
function fullYear(year: string): number {
  const n = Number(year);
  if (year.length === 2) return n < 50 ? 2000 + n : 1900 + n;
  if (year.length === 3) return 1900 + n;
  return n;
}

function utcDate(year: number, month: number | undefined, day: number, hour: number, minute: number, second: number, zone: string): Date | null {
  if (month === undefined || year < 1 || year > 9999) return null;
  const daysInMonth = new Date(Date.UTC(2000, month + 1, 0)).getUTCDate() + (month === 1 && !isLeapYear(year) ? -1 : 0);
  // Second 60 is a leap second (RFC 5322 §3.3): read as the last of its minute.
  if (day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 60) return null;
  const offset = zoneOffset(zone.trim());
  if (offset === null) return null;
  const utc = new Date(0);
  utc.setUTCFullYear(year, month, day);
  utc.setUTCHours(hour, minute, Math.min(second, 59), 0);
  return new Date(utc.getTime() - offset * 60_000);
}

const isLeapYear = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
