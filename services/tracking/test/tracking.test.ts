import { request } from 'node:http';
import { deriveKey, loadConfig, newId, TrackingTokens } from '@mailroom/core';
import { createPool, insertEmails, type Pool } from '@mailroom/db';
import { simpleParser } from 'mailparser';
import { scanHtml } from '../../sender/src/message/tracking/scan-html';
import type { TestDatabase } from '../../../test/support/databases';
import { TEST_SECRET_KEY, testEnv } from '../../../test/support/gateway';
import type { ApiClient } from '../../../test/support/http';
import { waitForEmail } from '../../../test/support/sending';
import type { SmtpSink } from '../../../test/support/smtp-sink';
import { type RunningDispatcher, startDispatcher } from '../../webhook-dispatcher/src/start-dispatcher';
import { Receiver, until } from '../../webhook-dispatcher/test/support';
import { PIXEL_GIF, startTracking, type RunningTracking } from '../src';
import { startTrackedSending, type TrackedSending } from './support';

const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';
const GMAIL_PROXY = 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)';
const SCANNER = 'python-requests/2.31.0';
const HTML = '<html><body><p>Hi</p><a href="https://acme.example/pricing?plan=pro&amp;ref=mail">Pricing</a> <a href="https://acme.example/docs#start">Docs</a> <a href="mailto:help@acme.example">Help</a></body></html>';
const base = { from: 'Acme <hello@acme.test>', subject: 'Tracked', text: 'Hi', html: HTML };
const tokens = new TrackingTokens(deriveKey(TEST_SECRET_KEY, 'tracking'));

let stack: TrackedSending;
let database: TestDatabase;
let sink: SmtpSink;
let tracking: RunningTracking;
let api: ApiClient;
let owner: TrackedSending['owner'];
let pool: Pool;
let dispatcher: RunningDispatcher;
const receiver = new Receiver();

beforeAll(async () => {
  await receiver.start();
  // The webhook receiver listens on loopback.
  stack = await startTrackedSending('tracking', { ALLOW_PRIVATE_NETWORKS: 'true' });
  ({ database, sink, tracking, api, owner } = stack);
  pool = createPool(database.url, 2);
  dispatcher = await startDispatcher(loadConfig(stack.env));
});
afterAll(async () => {
  await dispatcher.stop();
  await receiver.stop();
  await pool.end();
  await stack.stop();
});

/** Sends and waits until the sink has each recipient's message; returns the id and each recipient's parsed HTML. */
async function send(body: object): Promise<{ id: string; html: Map<string, string> }> {
  const before = sink.messages.length;
  const res = await api.post('/emails', body);
  expect(res.status).toBe(200);
  const email = await waitForEmail(api, res.body.id, (e) => e.status === 'delivered');
  const messages = (await sink.waitFor(before + email.recipients.length)).slice(before);
  const html = new Map<string, string>();
  for (const m of messages) html.set(m.recipients[0] as string, String((await simpleParser(m.raw)).html));
  return { id: res.body.id, html };
}

const trackingUrls = (html: string) => ({
  pixels: [...html.matchAll(/<img src="([^"]+\/o\/[^"]+)"/g)].map((m) => m[1] as string),
  links: scanHtml(html).hrefs.map((h) => h.value).filter((v) => v.startsWith(`${tracking.url}/c/`)),
});

/** A raw GET or HEAD (fetch would follow redirects and add its own User-Agent). */
function hit(url: string, options: { method?: string; userAgent?: string } = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.userAgent ? { 'user-agent': options.userAgent } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function engagement(emailId: string): Promise<{ type: string; recipient: string; data: any }[]> {
  await tracking.buffer.flush();
  const { rows } = await pool.query({
    text: "SELECT type, recipient, data FROM email_events WHERE email_id = $1 AND type IN ('email.opened', 'email.clicked') ORDER BY created_at, position",
    values: [emailId],
  });
  return rows;
}

describe('tracking opens and clicks', () => {
  test('when the project tracks by default and a send turns it off (and the reverse), then the captured messages have, or have not, the pixel and rewritten links', async () => {
    expect((await api.patch(`/projects/${owner.projectId}`, { trackOpens: true, trackClicks: true })).status).toBe(200);
    const byDefault = await send({ ...base, to: ['ada@example.test', 'bob@example.test'] });
    const ada = trackingUrls(byDefault.html.get('ada@example.test')!);
    const bob = trackingUrls(byDefault.html.get('bob@example.test')!);
    expect([ada.pixels.length, ada.links.length, bob.pixels.length, bob.links.length]).toEqual([1, 2, 1, 2]);
    // Two recipients of one email: different tokens, each naming its recipient.
    expect(ada.pixels[0]).not.toBe(bob.pixels[0]);
    expect(ada.links[0]).not.toBe(bob.links[0]);
    expect(tokens.verify(ada.links[0]!.split('/c/')[1]!)).toMatchObject({ kind: 'click', emailId: byDefault.id, url: 'https://acme.example/pricing?plan=pro&ref=mail' });
    expect(byDefault.html.get('ada@example.test')).toContain('<a href="mailto:help@acme.example">Help</a>');

    const optedOut = await send({ ...base, to: 'cy@example.test', trackOpens: false, trackClicks: false });
    expect(optedOut.html.get('cy@example.test')).toBe(HTML);
    expect((await api.get(`/emails/${optedOut.id}`)).body).toMatchObject({ trackOpens: false, trackClicks: false });

    expect((await api.patch(`/projects/${owner.projectId}`, { trackOpens: false, trackClicks: false })).status).toBe(200);
    const optedIn = await send({ ...base, to: 'dee@example.test', trackOpens: true, trackClicks: false });
    const dee = trackingUrls(optedIn.html.get('dee@example.test')!);
    expect([dee.pixels.length, dee.links.length]).toEqual([1, 0]);
    const untracked = await send({ ...base, to: 'eve@example.test' });
    expect(untracked.html.get('eve@example.test')).toBe(HTML);
    // Text-only mail is sent as it was written.
    const textOnly = await send({ from: base.from, subject: 'Text', text: 'See https://acme.example/x', to: 'fay@example.test', trackOpens: true, trackClicks: true });
    expect(textOnly.html.get('fay@example.test')).toBe('false');
  });

  test('when a delivered email is opened and clicked by a person, then it stays delivered, the timeline has both in order and the counts move', async () => {
    const hook = await api.post('/webhooks', { url: `${receiver.url}/engagement`, events: ['email.opened', 'email.clicked'] });
    expect(hook.status).toBe(201);
    const sent = await send({ ...base, to: 'gus@example.test', trackOpens: true, trackClicks: true });
    const urls = trackingUrls(sent.html.get('gus@example.test')!);

    const pixel = await hit(urls.pixels[0]!, { userAgent: BROWSER });
    expect(pixel.status).toBe(200);
    expect(pixel.headers['content-type']).toBe('image/gif');
    expect(pixel.headers['cache-control']).toContain('no-store');
    expect(pixel.body.equals(PIXEL_GIF)).toBe(true);
    expect(pixel.body).toHaveLength(43);
    await tracking.buffer.flush();
    const click = await hit(urls.links[0]!, { userAgent: BROWSER });
    expect(click.status).toBe(302);
    expect(click.headers.location).toBe('https://acme.example/pricing?plan=pro&ref=mail');
    // HEAD is answered and records nothing.
    expect((await hit(urls.pixels[0]!, { method: 'HEAD', userAgent: BROWSER })).status).toBe(200);
    expect((await hit(urls.links[1]!, { method: 'HEAD', userAgent: BROWSER })).headers.location).toBe('https://acme.example/docs#start');

    const events = await engagement(sent.id);
    expect(events.map((e) => e.type)).toEqual(['email.opened', 'email.clicked']);
    expect(events[0]!.data.open).toEqual({ ip_address: '127.0.0.1', user_agent: BROWSER, is_bot: false });
    expect(events[1]!.data.click).toEqual({ link: 'https://acme.example/pricing?plan=pro&ref=mail', ip_address: '127.0.0.1', user_agent: BROWSER, is_bot: false });
    const email = (await api.get(`/emails/${sent.id}`)).body;
    expect(email.status).toBe('delivered');
    expect(email.recipients[0]).toMatchObject({ status: 'delivered', opens: 1, clicks: 1, firstOpenedAt: expect.any(String) });
    expect(email.lastEvent).toBe('email.clicked');
    expect(email.events.map((e: any) => e.type)).toEqual(['email.sent', 'email.delivered', 'email.opened', 'email.clicked']);
    const clicks = await api.get(`/emails/${sent.id}/clicks`);
    expect(clicks.body).toEqual({
      object: 'list',
      data: [{ object: 'link_clicks', link: 'https://acme.example/pricing?plan=pro&ref=mail', clicks: 1, uniqueClicks: 1, botClicks: 0, firstClickedAt: expect.any(String), lastClickedAt: expect.any(String) }],
      hasMore: false,
    });
    expect((await api.get(`/emails/${newId('email')}/clicks`)).status).toBe(404);

    // The webhook subscribed to both got both, each event once, as the outbox has them.
    const delivered = () => receiver.requests.map((r) => JSON.parse(r.body)).filter((b) => b.data?.email_id === sent.id);
    await until(() => delivered().length >= 2, 15_000, 'both engagement webhooks');
    const bodies = delivered().sort((a, b) => (a.type < b.type ? 1 : -1));
    expect(bodies).toHaveLength(2);
    expect(bodies.map((b) => b.type)).toEqual(['email.opened', 'email.clicked']);
    expect(bodies[0].data).toMatchObject({ recipient: 'gus@example.test', open: { user_agent: BROWSER, is_bot: false } });
    expect(bodies[1].data).toMatchObject({ recipient: 'gus@example.test', click: { link: 'https://acme.example/pricing?plan=pro&ref=mail', is_bot: false } });
  });

  test('when a privacy proxy opens and a scanner clicks, then their events say is_bot and the counts leave them out', async () => {
    const sent = await send({ ...base, to: 'hal@example.test', trackOpens: true, trackClicks: true });
    const urls = trackingUrls(sent.html.get('hal@example.test')!);
    await hit(urls.pixels[0]!, { userAgent: GMAIL_PROXY });
    await hit(urls.pixels[0]!);
    await hit(urls.links[0]!, { userAgent: SCANNER });
    await tracking.buffer.flush();
    // A person's click on one link; then every link within a second, as a scanner follows them.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await hit(urls.links[0]!, { userAgent: BROWSER });
    await tracking.buffer.flush();
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    // The burst is judged in one batch: the timer is held while it arrives (a burst split across
    // two batches keeps its first click as a person's, as the README says).
    await tracking.buffer.stop();
    await Promise.all(urls.links.map((link) => hit(link, { userAgent: BROWSER })));
    tracking.buffer.start();
    await tracking.buffer.flush();

    const events = await engagement(sent.id);
    expect(events.map((e) => [e.type, (e.data.open ?? e.data.click).user_agent, (e.data.open ?? e.data.click).is_bot])).toEqual([
      ['email.opened', GMAIL_PROXY, true],
      ['email.opened', null, true],
      ['email.clicked', SCANNER, true],
      ['email.clicked', BROWSER, false],
      ['email.clicked', BROWSER, true],
      ['email.clicked', BROWSER, true],
    ]);
    const email = (await api.get(`/emails/${sent.id}`)).body;
    expect(email.recipients[0]).toMatchObject({ opens: 0, clicks: 1, firstOpenedAt: null, status: 'delivered' });
    expect((await api.get(`/emails/${sent.id}/clicks`)).body.data).toEqual([
      expect.objectContaining({ link: 'https://acme.example/pricing?plan=pro&ref=mail', clicks: 1, botClicks: 2 }),
      expect.objectContaining({ link: 'https://acme.example/docs#start', clicks: 0, botClicks: 1, firstClickedAt: null }),
    ]);
  });

  test('when a second link is clicked within a second of a click recorded by an earlier batch, then only the second is a bot', async () => {
    const sent = await send({ ...base, to: 'ivy@example.test', trackOpens: false, trackClicks: true });
    const urls = trackingUrls(sent.html.get('ivy@example.test')!);
    await hit(urls.links[0]!, { userAgent: BROWSER });
    // More clicks of the same link are no burst; the other link's click, judged in the next batch, is one with them.
    await Promise.all(Array.from({ length: 20 }, () => hit(urls.links[0]!, { userAgent: BROWSER })));
    await tracking.buffer.flush();
    // A user agent with quotes, a backslash and non-ASCII is stored as sent (the event's JSON is written by hand).
    const oddAgent = `${BROWSER} "quoted" back\\slash ünïcödé`;
    await hit(urls.links[1]!, { userAgent: oddAgent });
    await tracking.buffer.flush();

    const events = await engagement(sent.id);
    expect(events[21]!.data.click.user_agent).toBe(oddAgent);
    const verdicts = events.map((e) => [e.data.click.link, e.data.click.is_bot]);
    expect(verdicts).toHaveLength(22);
    expect(verdicts.slice(0, 21).every(([link, isBot]) => link === 'https://acme.example/pricing?plan=pro&ref=mail' && isBot === false)).toBe(true);
    expect(verdicts[21]).toEqual(['https://acme.example/docs#start', true]);
  });

  test('when a token is forged, altered, truncated, signed with another SECRET_KEY or aims elsewhere, then 404 with no redirect and no event', async () => {
    const emailId = newId('email');
    const recipientId = newId('recipient');
    const good = tokens.sign({ kind: 'click', emailId, recipientId, url: 'https://acme.example/' });
    const otherKey = new TrackingTokens(deriveKey('another deployment secret key, long enough', 'tracking'));
    const altered = Buffer.from(good, 'base64url');
    altered[40]! ^= 1;
    const attempts = [
      `/c/${otherKey.sign({ kind: 'click', emailId, recipientId, url: 'https://evil.example/' })}`,
      `/o/${otherKey.sign({ kind: 'open', emailId, recipientId })}`,
      `/c/${altered.toString('base64url')}`,
      `/c/${good.slice(0, -3)}`,
      `/c/${Buffer.concat([Buffer.from(good, 'base64url').subarray(0, 34), Buffer.from('https://evil.example/')]).toString('base64url')}`,
      `/o/${good}`, // a click token used as a pixel
      '/c/https://evil.example/',
      '/c//evil.example',
      '/c/%2F%2Fevil.example',
      '/c/?url=https://evil.example/',
      '/c/',
      '/o/',
    ];
    for (const path of attempts) {
      const res = await hit(`${tracking.url}${path}`, { userAgent: BROWSER });
      expect([path, res.status, res.headers.location]).toEqual([path, 404, undefined]);
      expect(JSON.parse(res.body.toString())).toMatchObject({ name: 'not_found', statusCode: 404 });
    }
    expect(tracking.buffer.size).toBe(0);
    expect((await hit(`${tracking.url}/c/${good}`, { method: 'POST' })).status).toBe(405);
    expect((await hit(`${tracking.url}/elsewhere`)).status).toBe(404);
  });

  test('when a client sends the request target in absolute form, then it is answered like the origin form (RFC 9112 §3.2.2)', async () => {
    const emailId = newId('email');
    const recipientId = newId('recipient');
    const open = tokens.sign({ kind: 'open', emailId, recipientId });
    const click = tokens.sign({ kind: 'click', emailId, recipientId, url: 'https://acme.example/a?b=1#c' });
    // The host in the target is ignored: the token alone says where the redirect goes.
    const absolute = (path: string) =>
      new Promise<{ status: number; location?: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: tracking.port, method: 'HEAD', path: `http://elsewhere.example${path}` }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
        });
        req.on('error', reject);
        req.end();
      });
    expect(await absolute(`/o/${open}`)).toEqual({ status: 200, location: undefined });
    expect(await absolute(`/c/${click}?utm=x`)).toEqual({ status: 302, location: 'https://acme.example/a?b=1#c' });
    expect(await absolute(`/c/${click.slice(0, -2)}`)).toEqual({ status: 404, location: undefined });
    expect(await absolute('/')).toEqual({ status: 404, location: undefined });
  });

  test('then /healthz, /readyz and /metrics answer on the tracking port', async () => {
    expect((await hit(`${tracking.url}/healthz`)).status).toBe(200);
    expect(JSON.parse((await hit(`${tracking.url}/readyz`)).body.toString())).toMatchObject({ status: 'ready' });
    const metrics = (await hit(`${tracking.url}/metrics`)).body.toString();
    expect(metrics).toContain('mailroom_tracking_requests_total{route="click",outcome="not_found"}');
    expect(metrics).toContain('mailroom_tracking_events_written_total');
  });

  test('when requests are answered between two reads of /metrics, then the second read adds exactly them to the first', async () => {
    const notFound = async () => {
      const metrics = (await hit(`${tracking.url}/metrics`)).body.toString();
      return Number(/^mailroom_tracking_requests_total\{route="open",outcome="not_found"\} (\d+)$/m.exec(metrics)?.[1] ?? 0);
    };
    const before = await notFound();
    for (let i = 0; i < 3; i++) expect((await hit(`${tracking.url}/o/not-a-token-${i}`)).status).toBe(404);
    expect(await notFound()).toBe(before + 3);
    expect(await notFound()).toBe(before + 3);
  });
});

describe('the engagement buffer', () => {
  test('when the service stops with events buffered, then every one of them is written', async () => {
    const env = testEnv(database, { TRACKING_PORT: '0' });
    // A flush interval far beyond the test: nothing is written before stop().
    const held = await startTracking(loadConfig(env), { host: '127.0.0.1', flushIntervalMs: 3_600_000, writeAt: 100_000, maxBatch: 100_000 });
    const emailId = newId('email');
    const recipients = Array.from({ length: 20 }, (_, i) => ({ id: newId('recipient'), address: `r${i}@example.test`, kind: 'to' as const }));
    await insertEmails(pool, [
      {
        id: emailId, projectId: owner.projectId, from: base.from, fromAddress: 'hello@acme.test', to: recipients.map((r) => r.address), cc: [], bcc: [], replyTo: [],
        subject: 'Held', html: HTML, text: null, headers: {}, tags: [], scheduledAt: null, trackOpens: true, trackClicks: true, messageId: `${emailId}@acme.test`,
        status: 'queued', nextAttemptAt: new Date(Date.now() + 3_600_000), recipients, attachments: [],
      },
    ]);
    const urls = recipients.flatMap((r) => [
      `${held.url}/o/${tokens.sign({ kind: 'open', emailId, recipientId: r.id })}`,
      `${held.url}/c/${tokens.sign({ kind: 'click', emailId, recipientId: r.id, url: 'https://acme.example/held' })}`,
    ]);
    for (let round = 0; round < 5; round++) await Promise.all(urls.map((url) => hit(url, { userAgent: BROWSER })));
    expect(held.buffer.size).toBe(200);
    expect((await pool.query({ text: 'SELECT count(*)::int AS n FROM email_events WHERE email_id = $1', values: [emailId] })).rows[0].n).toBe(0);
    await held.stop();
    const { rows } = await pool.query({ text: 'SELECT type, count(*)::int AS n FROM email_events WHERE email_id = $1 GROUP BY type ORDER BY type', values: [emailId] });
    expect(rows).toEqual([
      { type: 'email.clicked', n: 100 },
      { type: 'email.opened', n: 100 },
    ]);
  });
});
