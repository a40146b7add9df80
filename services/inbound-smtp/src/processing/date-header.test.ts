import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseDateHeader } from './message-headers';

const iso = (value: string) => parseDateHeader(value)?.toISOString() ?? null;

describe('a Date header', () => {
  test('when it is written as RFC 5322 §3.3 says, then the zone offset is applied', () => {
    expect(iso('Mon, 23 Nov 2026 10:00:00 +0100')).toBe('2026-11-23T09:00:00.000Z');
    expect(iso('23 Nov 2026 10:00 -0530')).toBe('2026-11-23T15:30:00.000Z');
    expect(iso('Mon, 23 Nov 2026 10:00:00 +0100 (CET)')).toBe('2026-11-23T09:00:00.000Z');
    expect(iso('Tue, 1 Jul 2003 10:52:37 +0200')).toBe('2003-07-01T08:52:37.000Z');
  });

  test('when it uses the obsolete forms of RFC 5322 §4.3, then they are read as that section says', () => {
    // Two-digit years: 00–49 are 20xx, 50–99 19xx; three digits count from 1900.
    expect(iso('Mon, 23 Nov 26 10:00:00 GMT')).toBe('2026-11-23T10:00:00.000Z');
    expect(iso('Thu, 13 Feb 69 23:32:54 -0330')).toBe('1969-02-14T03:02:54.000Z');
    expect(iso('13 Feb 103 10:00:00 +0000')).toBe('2003-02-13T10:00:00.000Z');
    // The US zone names, and military zones: Z is UTC, the others are read as -0000 (RFC 822 got their signs wrong).
    expect(iso('23 Nov 2026 10:00:00 EST')).toBe('2026-11-23T15:00:00.000Z');
    expect(iso('23 Nov 2026 10:00:00 PDT')).toBe('2026-11-23T17:00:00.000Z');
    expect(iso('23 Nov 2026 10:00:00 Z')).toBe('2026-11-23T10:00:00.000Z');
    expect(iso('23 Nov 2026 10:00:00 A')).toBe('2026-11-23T10:00:00.000Z');
    // A leap second is the last second of its minute.
    expect(iso('31 Dec 2016 23:59:60 +0000')).toBe('2016-12-31T23:59:59.000Z');
  });

  test('when it names a zone real mailers write but RFC 5322 does not list, then an unambiguous one is applied, any other read as UTC', () => {
    expect(iso('Mon, 23 Nov 2026 10:00:00 CEST')).toBe('2026-11-23T08:00:00.000Z');
    expect(iso('Mon, 23 Nov 2026 10:00:00 MET')).toBe('2026-11-23T09:00:00.000Z');
    expect(iso('Mon, 23 Nov 2026 10:00:00 BST')).toBe('2026-11-23T09:00:00.000Z');
    expect(iso('Mon, 23 Nov 2026 10:00:00 JST')).toBe('2026-11-23T01:00:00.000Z');
    expect(iso('Mon, 23 Nov 2026 10:00:00 GMT+0100')).toBe('2026-11-23T09:00:00.000Z');
    expect(iso('Mon, 23 Nov 2026 10:00:00 IST')).toBe('2026-11-23T10:00:00.000Z');
  });

  test('when it has no zone, then it is read as UTC, not in the time zone of the server (one in New York here)', () => {
    // jest's process.env is its own copy, so the zone is changed for a child process.
    const forms = ['Mon, 23 Nov 2026 10:00:00', 'Mon Nov 23 10:00:00 2026', '2026-11-23T10:00:00', 'November 23, 2026 10:00', '2026-11-23T10:00:00+01:00'];
    const script = `const { parseDateHeader } = require(${JSON.stringify(join(__dirname, 'message-headers.ts'))});
      console.log(JSON.stringify([new Date(2026, 10, 23).getTimezoneOffset(), ...${JSON.stringify(forms)}.map((f) => parseDateHeader(f)?.toISOString() ?? null)]));`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { env: { ...process.env, TZ: 'America/New_York' }, encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual([300, '2026-11-23T10:00:00.000Z', '2026-11-23T10:00:00.000Z', '2026-11-23T10:00:00.000Z', '2026-11-23T10:00:00.000Z', '2026-11-23T09:00:00.000Z']);
  });

  test('when it names a day the month does not have or a time that does not exist, then it is no date, not a rolled-over one', () => {
    expect(parseDateHeader('31 Feb 2026 10:00:00 +0000')).toBeNull();
    expect(parseDateHeader('29 Feb 2026 10:00:00 +0000')).toBeNull();
    expect(iso('29 Feb 2024 10:00:00 +0000')).toBe('2024-02-29T10:00:00.000Z');
    expect(parseDateHeader('23 Nov 2026 25:00:00 +0000')).toBeNull();
    expect(parseDateHeader('23 Nov 2026 10:00:00 +0199')).toBeNull();
    // No zone is a day or more from UTC: +2400 is no date, not the day before.
    expect(parseDateHeader('Mon, 23 Nov 2026 10:00:00 +2400')).toBeNull();
    expect(parseDateHeader('Mon, 23 Nov 2026 10:00:00 -2400')).toBeNull();
    expect(parseDateHeader('Mon, 23 Nov 2026 10:00:00 GMT+25')).toBeNull();
    expect(iso('Mon, 23 Nov 2026 10:00:00 +1400')).toBe('2026-11-22T20:00:00.000Z');
    expect(parseDateHeader('23 Smarch 2026 10:00:00 +0000')).toBeNull();
  });

  test('when it is missing, empty or not a date at all, then it is null (never "now")', () => {
    expect(parseDateHeader(undefined)).toBeNull();
    expect(parseDateHeader('  (just a comment) ')).toBeNull();
    expect(parseDateHeader('yesterday-ish')).toBeNull();
  });
});
