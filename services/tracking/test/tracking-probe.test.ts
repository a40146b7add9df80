import { createHmac } from 'node:crypto';
import { deriveKey, newId, TrackingTokens } from '@mailroom/core';
import { HtmlTracking } from '../../sender/src/message/tracking/track-html';
import { TEST_SECRET_KEY } from '../../../test/support/gateway';
import { exchange as exchangeWith, statusOf, tokens, useTrackingBed } from './support';

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0';
const BASE = 'https://t.example';

const bed = useTrackingBed('trksecprobe');

/** One request written as it is on its own connection to the service; its raw answer. */
const exchange = (raw: string | Buffer, done?: (text: string) => boolean) => exchangeWith(bed.tracking.port, raw, done);
const get = (path: string) => exchange(`GET ${path} HTTP/1.1\r\nHost: t\r\nUser-Agent: ${BROWSER}\r\nConnection: close\r\n\r\n`);
const headOf = (response: string) => response.slice(0, response.indexOf('\r\n\r\n'));
const locationOf = (response: string) => /\r\nlocation: ([^\r\n]*)/i.exec(headOf(response))?.[1] ?? null;

/**
 * A click token with the deployment's real key around any bytes at all, as a signer other than
 * TrackingTokens.sign (an older sender, a bug) could make: version 1, 'c', two ULIDs, the URL, MAC.
 */
function handSignedClick(url: Buffer): string {
  const header = Buffer.from(tokens.sign({ kind: 'open', emailId: newId('email'), recipientId: newId('recipient') }), 'base64url').subarray(0, 34);
  const body = Buffer.concat([Buffer.from([1, 0x63]), header.subarray(2), url]);
  const mac = createHmac('sha256', deriveKey(TEST_SECRET_KEY, 'tracking')).update(body).digest().subarray(0, 16);
  return Buffer.concat([body, mac]).toString('base64url');
}

describe('open redirect and header injection through the click redirect', () => {
  const track = (href: string, base = '') => {
    const html = `<html><head>${base}</head><body><a href="${href}">x</a></body></html>`;
    const personalize = new HtmlTracking({ tokens, baseUrl: BASE }).forEmail({ id: newId('email'), html, trackOpens: false, trackClicks: true });
    const out = personalize?.(html, { id: newId('recipient'), address: 'r@example.test', kind: 'to' } as never) ?? html;
    return /<a href="([^"]*)"/.exec(out)?.[1] ?? null;
  };

  test.each([
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    ' javascript:alert(1)',
    'java&#x09;script:alert(1)',
    'java&#10;script:alert(1)',
    '&#x6A;avascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
    'vbscript:msgbox(1)',
    '//evil.example/',
    '/\\evil.example/',
    '\\\\evil.example/',
  ])('when a sender links to %j (no <base>), then the link is not tracked: no token is made for it', (href) => {
    const out = track(href);
    expect(out).not.toContain(`${BASE}/c/`);
  });

  test('when links carry CR/LF, Unicode line separators or non-ASCII, then the tracked redirect answers a Location of visible ASCII only, the link as a URL parser reads it', async () => {
    const cases: Array<[string, string]> = [
      ['https://acme.example/a&#13;&#10;Set-Cookie:%20x=1', 'https://acme.example/aSet-Cookie:%20x=1'],
      ['https://acme.example/a%0d%0aSet-Cookie:x=1', 'https://acme.example/a%0d%0aSet-Cookie:x=1'],
      ['https://acme.example/a\u2028b\u2029c\u0085d', 'https://acme.example/a%E2%80%A8b%E2%80%A9c%C2%85d'],
      ['https://acme.example/na\u00efve?q=\u00fc', 'https://acme.example/na%C3%AFve?q=%C3%BC'],
      ['https://ACME.example/x', 'https://acme.example/x'],
    ];
    for (const [href, location] of cases) {
      const tracked = track(href);
      expect(tracked).toMatch(new RegExp(`^${BASE}/c/[A-Za-z0-9_-]+$`));
      const res = await get(new URL(tracked as string).pathname);
      expect({ href, status: statusOf(res), location: locationOf(res) }).toEqual({ href, status: 302, location });
      expect(headOf(res)).toMatch(/^[\x20-\x7e\r\n]*$/);
      expect(headOf(res)).not.toMatch(/\r\nset-cookie:/i);
    }
  });

  test('when a <base> is javascript:, data: or http(s) and the link is relative or javascript:, then nothing but an http(s) URL is ever tracked', () => {
    expect(track('x', '<base href="javascript:alert(1)//">')).toBe('x');
    expect(track('x', '<base href="data:text/html,hi/">')).toBe('x');
    expect(track('javascript:alert(1)', '<base href="https://good.example/">')).toBe('javascript:alert(1)');
    expect(track('data:text/html,x', '<base href="https://good.example/">')).toBe('data:text/html,x');
  });

  test('when a token carries a link not in its serialized form (CR/LF, U+2028, NEL, a space, non-ASCII), then the redirect goes to the link as a URL parser reads it: visible ASCII only, no header break, and the service keeps answering', async () => {
    const emailId = newId('email');
    const recipientId = newId('recipient');
    const cases: Array<[string, string]> = [
      ['https://acme.example/a\r\nSet-Cookie: x=1', 'https://acme.example/aSet-Cookie:%20x=1'],
      ['https://acme.example/a\u2028b\u2029c\u0085d', 'https://acme.example/a%E2%80%A8b%E2%80%A9c%C2%85d'],
      ['https://acme.example/\u00fc?q=\u00e9', 'https://acme.example/%C3%BC?q=%C3%A9'],
      ['https://acme.example/a b', 'https://acme.example/a%20b'],
    ];
    // TrackingTokens.sign takes any http(s) link; the sender hands it serialized ones, an older or other signer may not.
    for (const [url, location] of cases) {
      for (const token of [tokens.sign({ kind: 'click', emailId, recipientId, url }), handSignedClick(Buffer.from(url, 'utf8'))]) {
        const res = await get(`/c/${token}`);
        expect({ url, status: statusOf(res), location: locationOf(res) }).toEqual({ url, status: 302, location });
        expect(headOf(res)).toMatch(/^[\x20-\x7e\r\n]*$/);
        expect(headOf(res)).not.toMatch(/\r\nset-cookie:/i);
      }
    }
    expect(locationOf(await get(`/c/${tokens.sign({ kind: 'click', emailId, recipientId, url: 'https://acme.example/' })}`))).toBe('https://acme.example/');
  });

  test('when a token signed with the real key carries an http-looking link no URL parser takes, then 404 with no Location and no event', async () => {
    // Counted when the request is answered, so the buffer's own writes (every 100 ms) cannot move it.
    const before = await clicksRecorded();
    for (const url of ['https://exa mple.com/\r\nSet-Cookie: x=1', 'https://[::1/\u2028', 'http://\u0000/']) {
      const res = await get(`/c/${handSignedClick(Buffer.from(url, 'utf8'))}`);
      expect({ url, status: statusOf(res), location: locationOf(res) }).toEqual({ url, status: 404, location: null });
    }
    expect(await clicksRecorded()).toBe(before);
  });
});

/** Clicks the service took as events (outcome ok or bot), from mailroom_tracking_requests_total. */
async function clicksRecorded(): Promise<number> {
  const metrics = await (await fetch(`${bed.tracking.url}/metrics`)).text();
  let total = 0;
  for (const [, value] of metrics.matchAll(/^mailroom_tracking_requests_total\{route="click",outcome="(?:ok|bot)"\} (\S+)$/gm)) total += Number(value);
  return total;
}

/** The token with its first letter from position 10 on in the other case (a digit, `-` or `_` has none: swapping one changed nothing). */
function swapCaseOfALetter(token: string): string {
  const at = token.slice(10).search(/[A-Za-z]/) + 10;
  const letter = token[at] as string;
  return token.slice(0, at) + (letter === letter.toUpperCase() ? letter.toLowerCase() : letter.toUpperCase()) + token.slice(at + 1);
}

describe('forged, re-encoded and replayed tokens', () => {
  const emailId = newId('email');
  const recipientId = newId('recipient');
  // A token with both base64url-only characters, so its standard-base64 spelling differs from it.
  let good = '';
  for (let n = 0; !(good.includes('-') && good.includes('_')); n++) {
    good = tokens.sign({ kind: 'click', emailId, recipientId, url: `https://acme.example/landing?n=${n}` });
  }

  test.each([
    ['upper-cased', () => good.toUpperCase()],
    ['lower-cased', () => good.toLowerCase()],
    ['one letter case-swapped', () => swapCaseOfALetter(good)],
    ['standard base64 (+ and /)', () => Buffer.from(good, 'base64url').toString('base64')],
    ['padded base64url', () => `${good}==`],
    ['double percent-encoded', () => [...good].map((c) => `%25${c.charCodeAt(0).toString(16)}`).join('')],
    ['truncated by one', () => good.slice(0, -1)],
    ['with the MAC only', () => Buffer.from(good, 'base64url').subarray(-16).toString('base64url')],
    ["another deployment's", () => new TrackingTokens(deriveKey('another deployment, another SECRET_KEY!!', 'tracking')).sign({ kind: 'click', emailId, recipientId, url: 'https://evil.example/' })],
    ["signed with another sub-key of this SECRET_KEY (verp)", () => new TrackingTokens(deriveKey(TEST_SECRET_KEY, 'verp')).sign({ kind: 'click', emailId, recipientId, url: 'https://evil.example/' })],
    ["signed with another sub-key of this SECRET_KEY (session)", () => new TrackingTokens(deriveKey(TEST_SECRET_KEY, 'session')).sign({ kind: 'click', emailId, recipientId, url: 'https://evil.example/' })],
  ])('when the token is %s, then 404 with no Location', async (_what, make) => {
    const token = make();
    const res = await get(`/c/${token}`);
    expect({ status: statusOf(res), location: locationOf(res) }).toEqual({ status: 404, location: null });
  });

  test.each([
    '/c/%0D%0ALocation:%20https://evil.example/',
    '/c/%E2%80%A8https://evil.example/',
    '/c/\\evil.example',
    '/c/%5Cevil.example',
    '/c/%2F%2Fevil.example',
    '/\\evil.example',
    '//evil.example',
    '/c/javascript:alert(1)',
    '/c/data:text/html,x',
  ])('when the path is %j, then 404 with no Location', async (path) => {
    const res = await get(path);
    expect({ status: statusOf(res), location: locationOf(res) }).toEqual({ status: 404, location: null });
  });

  test('when a request line carries a raw CR, LF or U+2028, then it is refused as a bad request, never redirected', async () => {
    for (const raw of [
      `GET /c/${good}\rLocation: https://evil.example/ HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`,
      Buffer.concat([Buffer.from(`GET /c/${good}`), Buffer.from('\u2028', 'utf8'), Buffer.from(' HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n')]),
    ]) {
      const res = await exchange(raw);
      expect(locationOf(res)).toBeNull();
      expect([400, 404]).toContain(statusOf(res));
    }
  });

  test('when the path is very long (a 9 KiB link, a 100 KB path), then the answer is a redirect to exactly the signed link, or a refusal without a Location', async () => {
    const long = `https://acme.example/${'a'.repeat(9_000)}`;
    expect(() => tokens.sign({ kind: 'click', emailId, recipientId, url: long })).toThrow();
    const huge = await get(`/c/${good}${'A'.repeat(100_000)}`);
    expect(locationOf(huge)).toBeNull();
    expect(statusOf(huge)).toBeGreaterThanOrEqual(400);
  });
});
