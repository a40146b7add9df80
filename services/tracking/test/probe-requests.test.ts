import { loadConfig } from '@mailroom/core';
import { testEnv } from '../../../test/support/gateway';
import { until } from '../../../test/support/until';
import { PIXEL_GIF, startTracking } from '../src';
import { exchange as exchangeWith, insertTrackedEmail, statusOf, tokens, useTrackingBed } from './support';

const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

const bed = useTrackingBed('trkprobe');

/** One request written as it is on its own connection to the service; its raw answer. */
const exchange = (raw: string | Buffer, done?: (text: string) => boolean) => exchangeWith(bed.tracking.port, raw, done);

async function eventsOf(emailId: string): Promise<{ type: string; data: { open?: { is_bot: boolean; ip_address: string | null }; click?: { link: string; is_bot: boolean } } }[]> {
  const { rows } = await bed.pool.query({ text: 'SELECT type, data FROM email_events WHERE email_id = $1 ORDER BY created_at, id', values: [emailId] });
  return rows;
}

describe('tracking requests as proxies and old clients send them', () => {
  test('when a proxy adds a trailing slash or a query string to the pixel or link, then it is answered and recorded as without', async () => {
    const { emailId, recipientId } = await insertTrackedEmail(bed.pool, 'Slash');
    const open = tokens.sign({ kind: 'open', emailId, recipientId });
    const click = tokens.sign({ kind: 'click', emailId, recipientId, url: 'https://acme.example/p?x=1' });
    for (const path of [`/o/${open}/`, `/o/${open}?utm=1`, `/o/${open}/?a=b`]) {
      const res = await exchange(`GET ${path} HTTP/1.1\r\nHost: t\r\nUser-Agent: ${BROWSER}\r\nConnection: close\r\n\r\n`);
      expect([path, statusOf(res)]).toEqual([path, 200]);
      expect(res.endsWith(PIXEL_GIF.toString('latin1'))).toBe(true);
    }
    const res = await exchange(`GET /c/${click}/ HTTP/1.1\r\nHost: t\r\nUser-Agent: ${BROWSER}\r\nConnection: close\r\n\r\n`);
    expect(statusOf(res)).toBe(302);
    expect(res).toContain('\r\nlocation: https://acme.example/p?x=1\r\n');
    await until(async () => (await eventsOf(emailId)).length === 4, 5_000, 'four events');
  });

  test('when a client percent-encodes characters of the token, then it is the same token', async () => {
    const { emailId, recipientId } = await insertTrackedEmail(bed.pool, 'Percent');
    const open = tokens.sign({ kind: 'open', emailId, recipientId });
    const encoded = [...open].map((c, i) => (i % 3 === 0 ? `%${c.charCodeAt(0).toString(16).toUpperCase()}` : c)).join('');
    const lower = [...open].map((c, i) => (i % 5 === 0 ? `%${c.charCodeAt(0).toString(16)}` : c)).join('');
    for (const token of [encoded, lower]) {
      const res = await exchange(`GET /o/${token} HTTP/1.1\r\nHost: t\r\nUser-Agent: ${BROWSER}\r\nConnection: close\r\n\r\n`);
      expect(statusOf(res)).toBe(200);
    }
    // A percent sign that encodes anything but a token character is still a bad token.
    for (const bad of [`${open}%00`, `${open}%2F`, `%${open}`, `${open.slice(0, -1)}%zz`]) {
      const res = await exchange(`GET /o/${bad} HTTP/1.1\r\nHost: t\r\nUser-Agent: ${BROWSER}\r\nConnection: close\r\n\r\n`);
      expect([bad, statusOf(res)]).toEqual([bad, 404]);
    }
    await until(async () => (await eventsOf(emailId)).length === 2, 5_000, 'two events');
  });

  test('when an HTTP/1.0 client without Host, and a client pipelining three requests, ask, then each is answered in order', async () => {
    const { emailId, recipientId } = await insertTrackedEmail(bed.pool, 'Old');
    const open = tokens.sign({ kind: 'open', emailId, recipientId });
    const click = tokens.sign({ kind: 'click', emailId, recipientId, url: 'https://acme.example/' });
    const old = await exchange(`GET /o/${open} HTTP/1.0\r\nUser-Agent: ${BROWSER}\r\n\r\n`);
    expect(statusOf(old)).toBe(200);
    const req = (path: string, method = 'GET') => `${method} ${path} HTTP/1.1\r\nHost: t\r\nUser-Agent: ${BROWSER}\r\n\r\n`;
    const piped = await exchange(req(`/o/${open}`) + req(`/c/${click}`, 'HEAD') + req(`/c/${click}`), (t) => (t.match(/HTTP\/1\.1 /g) ?? []).length === 3);
    expect([...piped.matchAll(/HTTP\/1\.1 (\d+)/g)].map((m) => m[1])).toEqual(['200', '302', '302']);
    await until(async () => (await eventsOf(emailId)).length === 3, 5_000, 'three events (HEAD records none)');
  });

  test('when a link as long as a token can carry (8 KiB) is clicked with a browser\'s headers, then it redirects to it', async () => {
    const { emailId, recipientId } = await insertTrackedEmail(bed.pool, 'Long');
    const url = `https://long.example/p?${'q=x&'.repeat(2_040)}end=1`.slice(0, 8_192);
    const click = tokens.sign({ kind: 'click', emailId, recipientId, url });
    expect(click.length).toBeGreaterThan(10_000);
    const headers = `Host: t\r\nUser-Agent: ${BROWSER}\r\nAccept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\nAccept-Language: en-US,en;q=0.9\r\nAccept-Encoding: gzip, deflate, br\r\nConnection: close\r\n\r\n`;
    const res = await exchange(`GET /c/${click} HTTP/1.1\r\n${headers}`);
    expect(statusOf(res)).toBe(302);
    expect(res).toContain(`\r\nlocation: ${url}\r\n`);
    await until(async () => (await eventsOf(emailId)).length === 1, 5_000, 'the click');
  });
});

describe('behind a trusted proxy (TRACKING_TRUST_PROXY)', () => {
  test('when the proxy appends the client address with a port, then the address is recorded without it and the network rules see it', async () => {
    const behind = await startTracking(loadConfig(testEnv(bed.database, { TRACKING_PORT: '0', TRACKING_TRUST_PROXY: 'true' })), { host: '127.0.0.1', flushIntervalMs: 100 });
    try {
      const { emailId, recipientId } = await insertTrackedEmail(bed.pool, 'Forwarded');
      const open = tokens.sign({ kind: 'open', emailId, recipientId });
      const forwarded = ['198.51.100.7:51234', '198.51.100.8, 17.58.1.20:443', '[2001:db8::7]:8443', '2001:db8::9', '  198.51.100.10  '];
      for (const xff of forwarded) {
        const res = await exchangeWith(behind.port, `GET /o/${open} HTTP/1.1\r\nHost: t\r\nUser-Agent: ${BROWSER}\r\nX-Forwarded-For: ${xff}\r\nConnection: close\r\n\r\n`);
        expect(statusOf(res)).toBe(200);
      }
      await until(async () => (await eventsOf(emailId)).length === forwarded.length, 5_000, 'every open');
      expect((await eventsOf(emailId)).map((e) => [e.data.open?.ip_address, e.data.open?.is_bot])).toEqual([
        ['198.51.100.7', false],
        // Apple's network: Mail Privacy Protection, whatever the port.
        ['17.58.1.20', true],
        ['2001:db8::7', false],
        ['2001:db8::9', false],
        ['198.51.100.10', false],
      ]);
    } finally {
      await behind.stop();
    }
  });

  test('when Node\'s HTTP parser refuses a request (headers over 16 KB), then the answer is the contract\'s JSON, not a bare status', async () => {
    const res = await exchange(`GET /o/x HTTP/1.1\r\nHost: t\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(statusOf(res)).toBe(431);
    expect(res).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(res.slice(res.indexOf('\r\n\r\n') + 4))).toMatchObject({ name: 'headers_too_large', statusCode: 431 });
  });

  test('when a client sends CONNECT or an Expect other than 100-continue, then CONNECT is a 405 in the contract\'s JSON and the other is answered as if it had none (RFC 9110 §10.1.1), not Node\'s bare 417', async () => {
    const connectRes = await exchange('CONNECT example.test:443 HTTP/1.1\r\nHost: example.test:443\r\n\r\n');
    expect(statusOf(connectRes)).toBe(405);
    expect(connectRes).toMatch(/^allow: GET, HEAD$/im);
    expect(JSON.parse(connectRes.slice(connectRes.indexOf('\r\n\r\n') + 4))).toMatchObject({ name: 'method_not_allowed', statusCode: 405 });
    const { emailId, recipientId } = await insertTrackedEmail(bed.pool, 'Expecting');
    const open = tokens.sign({ kind: 'open', emailId, recipientId });
    const res = await exchange(`GET /o/${open} HTTP/1.1\r\nHost: t\r\nExpect: something-else\r\nUser-Agent: ${BROWSER}\r\nConnection: close\r\n\r\n`);
    expect(statusOf(res)).toBe(200);
    expect(res).toMatch(/content-type: image\/gif/i);
    await until(async () => (await eventsOf(emailId)).length === 1, 5_000, 'the open with an Expect');
  });

  test('when a client never finishes its headers, then it gets a 408 within seconds of the 10 s deadline (Node checks it every second, not every 30)', async () => {
    const started = Date.now();
    const res = await exchange('GET /o/x HTTP/1.1\r\nHost: t\r\nX-Slow: ');
    expect(statusOf(res)).toBe(408);
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 40_000);

  test('when an HTTP/1.1 request carries no Host (RFC 9112 §3.2), then it is a 400 in the contract\'s JSON, no event and the connection closed', async () => {
    const { emailId, recipientId } = await insertTrackedEmail(bed.pool, 'NoHost');
    const open = tokens.sign({ kind: 'open', emailId, recipientId });
    const res = await exchange(`GET /o/${open} HTTP/1.1\r\nUser-Agent: ${BROWSER}\r\n\r\n`);
    expect(statusOf(res)).toBe(400);
    expect(res).toMatch(/content-type: application\/json/i);
    expect(res).toMatch(/connection: close/i);
    expect(JSON.parse(res.slice(res.indexOf('\r\n\r\n') + 4))).toMatchObject({ name: 'invalid_json', statusCode: 400 });
    // With a Host, the same token is an open: only that one is recorded.
    expect(statusOf(await exchange(`GET /o/${open} HTTP/1.1\r\nHost: t\r\nUser-Agent: ${BROWSER}\r\nConnection: close\r\n\r\n`))).toBe(200);
    await until(async () => (await eventsOf(emailId)).length === 1, 5_000, 'the open with a Host');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await eventsOf(emailId)).toHaveLength(1);
  });
});
