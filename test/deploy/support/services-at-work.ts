import { once } from 'node:events';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig, newId } from '@mailroom/core';
import { simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { type RunningInbound, startInbound } from '../../../services/inbound-smtp/src/start-inbound';
import { swaks } from '../../../services/inbound-smtp/test/smtp-support';
import { type RunningSender, startSender } from '../../../services/sender/src/start-sender';
import { type RunningTracking, startTracking } from '../../../services/tracking/src/start-tracking';
import { type RunningDispatcher, startDispatcher } from '../../../services/webhook-dispatcher/src/start-dispatcher';
import { Receiver, until } from '../../../services/webhook-dispatcher/test/support';
import { createTestDatabase, type TestDatabase } from '../../support/databases';
import { createKey, signUp, startTestGateway, testEnv, type TestGateway } from '../../support/gateway';
import type { ApiClient } from '../../support/http';
import { isFinished, waitForEmail } from '../../support/sending';
import { sampleValue } from './promql';

/**
 * Every Mailroom service started the way its main.ts starts it, on one database, and the real
 * work done on them (README "Metrics"): shared by test/deploy/metrics.test.ts, which checks the
 * scraped values step by step, and test/deploy/prometheus-peer.test.ts, which has a real
 * Prometheus scrape them while the same work is done.
 */

export const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';
export const IMAGE_PROXY = 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)';

/**
 * An SMTP next hop: 550 5.1.1 for `bounce@`, holds its reply to DATA for `held…@` until
 * `release()`, accepts everything else; keeps what it accepted.
 */
export class Sink {
  readonly messages: { from: string; to: string; raw: Buffer }[] = [];
  received = 0;
  port = 0;
  private readonly held: (() => void)[] = [];
  private holding = true;
  private readonly server = new SMTPServer({
    disabledCommands: ['AUTH', 'STARTTLS'],
    authOptional: true,
    disableReverseLookup: true,
    logger: false,
    onRcptTo: (address, _session, callback) =>
      address.address.startsWith('bounce@') ? callback(Object.assign(new Error('5.1.1 No such user'), { responseCode: 550 })) : callback(),
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        this.received += 1;
        const to = session.envelope.rcptTo[0]?.address ?? '';
        const reply = () => {
          this.messages.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to, raw: Buffer.concat(chunks) });
          callback();
        };
        if (this.holding && to.startsWith('held')) this.held.push(reply);
        else reply();
      });
    },
  });

  async start(): Promise<void> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server.server, 'listening');
    this.port = (this.server.server.address() as AddressInfo).port;
  }

  release(): void {
    this.holding = false;
    for (const reply of this.held.splice(0)) reply();
  }

  stop(): Promise<void> {
    this.release();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** GET with a chosen User-Agent; the body as text. */
export function get(url: string, userAgent = BROWSER): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { 'user-agent': userAgent } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** One service's /metrics exposition; anything but a 200 throws. */
export async function scrape(url: string): Promise<string> {
  const res = await get(`${url}/metrics`);
  if (res.status !== 200) throw new Error(`GET ${url}/metrics answered ${res.status}: ${res.body.slice(0, 200)}`);
  return res.body;
}

/** Scrapes `url` until the sample has the value `expected` (gauges read at scrape time lag by their cache); returns that scrape. */
export async function scrapeUntil(url: string, name: string, labels: Record<string, string>, expected: number, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await scrape(url);
    const value = sampleValue(text, name, labels);
    if (value === expected) return text;
    if (Date.now() > deadline) throw new Error(`${name}${JSON.stringify(labels)} is ${value}, not ${expected}, after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The five services, their sink and receiver, an API key's client, a project and its inbound route. */
export interface Mailroom {
  database: TestDatabase;
  t: TestGateway;
  sender: RunningSender;
  dispatcher: RunningDispatcher;
  inbound: RunningInbound;
  tracking: RunningTracking;
  sink: Sink;
  receiver: Receiver;
  api: ApiClient;
  projectId: string;
  routeId: string;
  /** Each service's base URL, its /metrics below it, by the service's name. */
  metricsUrls(): Record<'gateway' | 'sender' | 'webhook-dispatcher' | 'inbound-smtp' | 'tracking', string>;
  /** POST /emails from Acme; the email's id. */
  send(to: string, extra?: object): Promise<string>;
  /** Stops everything started (also what a failed start left running) and drops the database. */
  stop(): Promise<void>;
}

/**
 * Starts every service on a fresh database (named after `label`), an SMTP sink as their next
 * hop, a webhook receiver, a project with two endpoints (one for every event, one for bounces
 * answering 410) and a route for support@acme.test.
 */
export async function startMailroom(label: string): Promise<Mailroom> {
  const sink = new Sink();
  const receiver = new Receiver();
  const m: Partial<Mailroom> = { sink, receiver };
  const stop = async () => {
    await Promise.allSettled([m.sender?.stop(), m.dispatcher?.stop(), m.inbound?.stop(), m.tracking?.stop()]);
    await m.t?.close();
    await Promise.allSettled([sink.stop(), receiver.stop()]);
    await m.database?.drop();
  };
  try {
    const database = await createTestDatabase(label);
    m.database = database;
    await Promise.all([sink.start(), receiver.start()]);
    const base = testEnv(database, {
      OPS_PORT: '0',
      TRACKING_PORT: '0',
      SMTP_PORT: '0',
      OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
      ALLOW_PRIVATE_NETWORKS: 'true',
      ALLOW_SIGNUP: 'true',
      BOUNCE_DOMAIN: 'bounces.mailroom.test',
      RECONCILE_INTERVAL_SECONDS: '1',
    });
    m.tracking = await startTracking(loadConfig(base), { host: '127.0.0.1' });
    const env = { ...base, TRACKING_BASE_URL: m.tracking.url };
    m.t = await startTestGateway({ database, env });
    const config = loadConfig(env);
    [m.sender, m.dispatcher, m.inbound] = await Promise.all([startSender(config), startDispatcher(config), startInbound(config, { host: '127.0.0.1' })]);
    const owner = await signUp(m.t.api);
    m.projectId = owner.projectId;
    const api = m.t.api.as({ token: (await createKey(owner.as)).token });
    m.api = api;
    receiver.answer = (r) => (r.url.startsWith('/hook/gone') ? { status: 410 } : { status: 200, body: 'ok' });
    const all = await api.post('/webhooks', { url: `${receiver.url}/all`, events: ['email.sent', 'email.delivered', 'email.bounced', 'email.complained', 'email.opened', 'email.received'] });
    if (all.status !== 201) throw new Error(`POST /webhooks answered ${all.status}`);
    // Only the one bounce reaches it: one 410, one endpoint disabled.
    const gone = await api.post('/webhooks', { url: `${receiver.url}/gone`, events: ['email.bounced'] });
    if (gone.status !== 201) throw new Error(`POST /webhooks answered ${gone.status}`);
    const route = await api.post('/routes', { match: 'support@acme.test' });
    if (route.status !== 201) throw new Error(`POST /routes answered ${route.status}`);
    m.routeId = route.body.id;
  } catch (err) {
    await stop();
    throw err;
  }
  const { t, sender, dispatcher, inbound, tracking } = m as Mailroom;
  return {
    ...(m as Mailroom),
    metricsUrls: () => ({
      gateway: t.gateway.url,
      sender: opsUrl(sender.opsUrl),
      'webhook-dispatcher': opsUrl(dispatcher.opsUrl),
      'inbound-smtp': opsUrl(inbound.opsUrl),
      tracking: tracking.url,
    }),
    async send(to, extra = {}) {
      const res = await (m.api as ApiClient).post('/emails', { from: 'Acme <hello@acme.test>', to, subject: 'Hello', html: '<p>Hi <a href="https://acme.example/">there</a></p>', ...extra });
      if (res.status !== 200) throw new Error(`POST /emails answered ${res.status}: ${JSON.stringify(res.body)}`);
      return res.body.id as string;
    },
    stop,
  };
}

/** A worker's ops server URL: there is one, OPS_PORT being set. */
function opsUrl(url: string | undefined): string {
  if (!url) throw new Error('a worker started without its ops server (OPS_PORT)');
  return url;
}

// The work, step by step; each step returns what its checks need.

/** Three sends the sink holds at DATA, returned once the sink has all three (they are due and being worked on). */
export async function sendHeld(m: Mailroom): Promise<string[]> {
  const held = [await m.send('held1@example.test'), await m.send('held2@example.test'), await m.send('held3@example.test')];
  await until(() => m.sink.received === 3, 20_000, 'the three held messages at the sink');
  return held;
}

/** A tracked send, a bounce (550 5.1.1) and a sandbox complaint; the sink releases the held ones; returns once all are final. */
export async function sendOthersAndRelease(m: Mailroom, held: readonly string[]): Promise<void> {
  const others = [await m.send('ok@example.test', { trackOpens: true }), await m.send('bounce@example.test'), await m.send('complained@sandbox.mailroom.test')];
  m.sink.release();
  for (const id of [...held, ...others]) await waitForEmail(m.api, id, isFinished, 20_000);
}

/** The tracked email's pixel fetched by a person and by an image proxy, and a bad token: the three answers' statuses. */
export async function openTrackedEmail(m: Mailroom): Promise<{ pixel: string; person: number; proxy: number; badToken: number }> {
  const message = m.sink.messages.find((msg) => msg.to === 'ok@example.test');
  const html = String((await simpleParser(message?.raw ?? Buffer.alloc(0))).html);
  const pixel = /<img src="([^"]+\/o\/[^"]+)"/.exec(html)?.[1] ?? '';
  return {
    pixel,
    person: (await get(pixel)).status,
    proxy: (await get(pixel, IMAGE_PROXY)).status,
    badToken: (await get(`${m.tracking.url}/o/not-a-token`)).status,
  };
}

/** A message into the MX for the route, and one for nobody: swaks's exit codes. */
export async function receiveMail(m: Mailroom): Promise<{ accepted: number | null; refused: number | null }> {
  const server = ['--server', '127.0.0.1', '--port', String(m.inbound.port), '--from', 'alice@example.com', '--helo', 'client.example.com'];
  const accepted = (await swaks([...server, '--to', 'support@acme.test', '--header', 'Subject: Metrics'])).code;
  const refused = (await swaks([...server, '--to', 'nobody@acme.test'])).code;
  return { accepted, refused };
}

/** A received message stored as the MX stores it before its 250, a minute ago, with no job in any queue (Redis lost it). */
export async function strandReceivedMessage(m: Mailroom): Promise<void> {
  const raw = Buffer.from('From: alice@example.com\r\nTo: support@acme.test\r\nSubject: Lost\r\n\r\nHello.\r\n');
  await m.inbound.backends.pool.query({
    text: `INSERT INTO received_emails (id, project_id, kind, route_ids, mail_from, rcpt_to, raw, size, "references", created_at)
           VALUES ($1, $2, 'route', ARRAY[$3], 'alice@example.com', ARRAY['support@acme.test'], $4, $5, '{}', now() - interval '1 minute')`,
    values: [newId('receivedEmail'), m.projectId, m.routeId, raw, raw.length],
  });
}

/** Waits until the endpoint answering 410 is disabled; the return path held1@'s message was sent with. */
export async function bounceReturnPath(m: Mailroom): Promise<string> {
  // The endpoint subscribed to bounces is disabled by the first one's 410 before the report's: one 410 in all.
  await until(
    async () => (await m.inbound.backends.pool.query({ text: "SELECT 1 FROM webhooks WHERE url LIKE '%/hook/gone' AND NOT enabled" })).rowCount === 1,
    30_000,
    'the endpoint that is gone to be disabled',
  );
  return m.sink.messages.find((msg) => msg.to === 'held1@example.test')?.from ?? '';
}

/** A DSN for held1@ (delivered) sent to its return path through the MX. */
export async function sendBounceReport(m: Mailroom, returnPath: string): Promise<void> {
  const report = [
    'From: Mail Delivery System <MAILER-DAEMON@mx.example.net>',
    `To: ${returnPath}`,
    'Subject: Undelivered Mail Returned to Sender',
    'Message-ID: <dsn-metrics@mx.example.net>',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"',
    '',
    '--b1',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.example.net',
    '',
    'Final-Recipient: rfc822; held1@example.test',
    'Action: failed',
    'Status: 5.1.1',
    'Diagnostic-Code: smtp; 550 5.1.1 User unknown',
    '',
    '--b1--',
    '',
  ].join('\r\n');
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: m.inbound.port, secure: false, ignoreTLS: true });
  try {
    await transport.sendMail({ envelope: { from: '', to: [returnPath] }, raw: report });
  } finally {
    transport.close();
  }
}

/**
 * All of the above in order, each step waited for through the services' own /metrics (the
 * values metrics.test.ts checks): sends (held, then answered), the tracked open, mail into the
 * MX, a stranded message the reconciler finds, a bounce report, and the webhooks drained.
 */
export async function doRealWork(m: Mailroom): Promise<void> {
  const urls = m.metricsUrls();
  const held = await sendHeld(m);
  await scrapeUntil(urls.sender, 'mailroom_queue_due_items', { queue: 'send' }, 3);
  await sendOthersAndRelease(m, held);
  await scrapeUntil(urls.sender, 'mailroom_queue_due_items', { queue: 'send' }, 0);
  const opened = await openTrackedEmail(m);
  if (opened.person !== 200 || opened.proxy !== 200 || opened.badToken !== 404) throw new Error(`tracking answered ${JSON.stringify(opened)}`);
  const received = await receiveMail(m);
  if (received.accepted !== 0 || received.refused === 0) throw new Error(`swaks exited ${JSON.stringify(received)}`);
  await scrapeUntil(urls['inbound-smtp'], 'mailroom_inbound_processed_total', { result: 'stored' }, 1);
  await strandReceivedMessage(m);
  await scrapeUntil(urls['inbound-smtp'], 'mailroom_inbound_processed_total', { result: 'stored' }, 2);
  await sendBounceReport(m, await bounceReturnPath(m));
  await scrapeUntil(urls['inbound-smtp'], 'mailroom_inbound_processed_total', { result: 'stored' }, 3);
  await until(() => m.receiver.requests.some((r) => r.url.startsWith('/hook/gone')), 30_000, 'the bounce posted to the endpoint that is gone');
  await scrapeUntil(urls['webhook-dispatcher'], 'mailroom_queue_due_items', { queue: 'webhook-deliveries' }, 0, 30_000);
}
