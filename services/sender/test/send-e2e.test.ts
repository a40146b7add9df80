import { createRedis, openQueue, queues } from '@mailroom/core';
import { DnsServer } from '../../../test/support/dns-server';
import { FINAL, isFinished, startSendingStack, waitForEmail, type SendingStack } from '../../../test/support/sending';
import { SmtpSink } from '../../../test/support/smtp-sink';

const FROM = 'Acme <hello@acme.test>';
const base = { from: FROM, subject: 'Hello', text: 'Hi there', html: '<p>Hi there</p>' };

/** Replies by local part: ok → 250, defer → 451 once, slow → 451 always, bounce → 550 5.1.1, policy → 550 5.7.1. */
function rules(recipient: string, attempt: number) {
  const local = recipient.split('@')[0]!;
  if (local.startsWith('defer') && attempt === 1) return { code: 451, message: '4.7.1 Greylisted, try again in 1 second' };
  if (local.startsWith('slow')) return { code: 451, message: '4.3.0 Temporary failure' };
  if (local.startsWith('bounce')) return { code: 550, message: '5.1.1 No such user' };
  if (local.startsWith('policy')) return { code: 550, message: '5.7.1 Message rejected by policy' };
  if (local.startsWith('nouser')) return { code: 550, message: 'No such user here' };
  return { code: 250, message: 'OK' };
}

const types = (email: any, recipient?: string) =>
  email.events.filter((e: any) => !recipient || e.data.recipient === recipient).map((e: any) => e.type);

describe('sending through a smarthost', () => {
  let sink: SmtpSink;
  let s: SendingStack;
  beforeAll(async () => {
    // A smarthost's certificate is verified; this sink's built-in one is self-signed, so no STARTTLS here.
    sink = await new SmtpSink({ rcpt: rules, starttls: false }).start();
    s = await startSendingStack('sendsmart', { OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sink.port}`, OPS_PORT: '0', SMTP_HOSTNAME: 'out.mailroom.test' });
  });
  afterAll(async () => {
    await s.close();
    await sink.stop();
  });

  test('when OPS_PORT is set, then the sender answers /healthz, /readyz and /metrics there', async () => {
    const url = s.sender.opsUrl as string;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${url}/readyz`);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok', migrations: 'ok', shuttingDown: false } });
    expect(await (await fetch(`${url}/metrics`)).text()).toContain('mailroom_sender_process_cpu_user_seconds_total');
  });

  test('when the server answers 250, then the email is delivered with email.sent and email.delivered on its timeline', async () => {
    const { id } = (await s.api.post('/emails', { ...base, to: 'ok-1@example.test', bcc: 'ok-hidden@example.test', tags: [{ name: 'kind', value: 'welcome' }] })).body;
    const email = await waitForEmail(s.api, id, isFinished);
    expect(email.status).toBe('delivered');
    expect(email.lastEvent).toBe('email.delivered');
    expect(email.recipients).toEqual([
      { email: 'ok-1@example.test', kind: 'to', status: 'delivered', attempts: 1, lastResponse: '250 OK: queued', nextAttemptAt: null, opens: 0, clicks: 0, firstOpenedAt: null },
      { email: 'ok-hidden@example.test', kind: 'bcc', status: 'delivered', attempts: 1, lastResponse: '250 OK: queued', nextAttemptAt: null, opens: 0, clicks: 0, firstOpenedAt: null },
    ]);
    expect(types(email, 'ok-1@example.test')).toEqual(['email.sent', 'email.delivered']);
    // Once finished, the email is given back: no lease held, nothing left to do.
    const db = s.t.gateway.ctx.db;
    for (let i = 0; i < 50 && (await db.email.findUniqueOrThrow({ where: { id } })).leaseOwner !== null; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await db.email.findUniqueOrThrow({ where: { id } })).toMatchObject({ leaseOwner: null, leaseExpiresAt: null, nextAttemptAt: null });
    const delivered = email.events.find((e: any) => e.type === 'email.delivered' && e.data.recipient === 'ok-1@example.test');
    expect(delivered.id).toMatch(/^evt_/);
    expect(delivered.data).toMatchObject({
      email_id: id, from: FROM, to: ['ok-1@example.test'], subject: 'Hello', tags: [{ name: 'kind', value: 'welcome' }],
      recipient: 'ok-1@example.test', attempt: 1, smtp: { code: 250 },
    });

    // One SMTP transaction per recipient, each with its own VERP return path; Bcc never in the headers.
    const received = sink.messages.filter((m) => m.raw.includes(`<${id}@acme.test>`));
    expect(received).toHaveLength(2);
    const returnPaths = received.map((m) => m.from);
    expect(new Set(returnPaths).size).toBe(2);
    for (const m of received) {
      // EHLO names SMTP_HOSTNAME, the name the sending IP's PTR record should give.
      expect(m.heloName).toBe('out.mailroom.test');
      expect(m.recipients).toHaveLength(1);
      expect(m.from).toMatch(/^bounces\+rcpt_[0-9A-Z]{26}-[0-9a-f]{12}@bounces\.localhost$/);
      const headers = m.raw.toString('utf8').split('\r\n\r\n')[0]!;
      expect(headers).toContain(`Message-ID: <${id}@acme.test>`);
      expect(headers).toContain('Subject: Hello');
      expect(headers).not.toMatch(/^bcc:/im);
    }
  });

  test('when an email is delivered and a test address is simulated, then the events queue holds wake-ups for their committed events', async () => {
    const redis = createRedis(s.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'request');
    const { queue } = openQueue(queues.events, { connection: redis, prefix: s.env.QUEUE_PREFIX! });
    try {
      for (const to of ['ok-notify@example.test', 'delivered@sandbox.mailroom.test']) {
        await queue.obliterate({ force: true });
        const { id } = (await s.api.post('/emails', { ...base, to })).body;
        expect((await waitForEmail(s.api, id, isFinished)).status).toBe('delivered');
        // Notified after the commit, without waiting for it: allow the add a moment to land.
        for (let i = 0; i < 50 && (await queue.getWaitingCount()) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
        const jobs = await queue.getWaiting();
        expect(jobs.length).toBeGreaterThan(0);
        expect(jobs.every((job) => job.name === 'events' && job.data.reason === 'appended')).toBe(true);
      }
    } finally {
      await queue.close();
      redis.disconnect();
    }
  });

  test('when the server answers 451 first, then the recipient is delayed, retried, and delivered', async () => {
    const { id } = (await s.api.post('/emails', { ...base, to: 'defer-1@example.test' })).body;
    const email = await waitForEmail(s.api, id, isFinished);
    expect(email.status).toBe('delivered');
    expect(types(email)).toEqual(['email.sent', 'email.delivery_delayed', 'email.delivered']);
    const delayed = email.events[1];
    expect(delayed.data).toMatchObject({ attempt: 1, smtp: { code: 451, enhanced_code: '4.7.1' } });
    expect(email.events[2].data.attempt).toBe(2);
    expect(sink.attempts('defer-1@example.test')).toBe(2);
  });

  test('when 451 lasts past the schedule, then the recipient fails with email.failed', async () => {
    const { id } = (await s.api.post('/emails', { ...base, to: 'slow-1@example.test' })).body;
    const email = await waitForEmail(s.api, id, isFinished);
    expect(email.status).toBe('failed');
    expect(types(email)).toEqual(['email.sent', 'email.delivery_delayed', 'email.delivery_delayed', 'email.failed']);
    expect(sink.attempts('slow-1@example.test')).toBe(3); // 1 + two retries of SMTP_RETRY_SCHEDULE=1,1
  });

  test('when the server answers 550 5.1.1, then it bounces, the address is suppressed, and the next send records suppressed', async () => {
    const first = (await s.api.post('/emails', { ...base, to: 'bounce-1@example.test' })).body.id;
    const bounced = await waitForEmail(s.api, first, isFinished);
    expect(bounced.status).toBe('bounced');
    expect(bounced.events[1]).toMatchObject({
      type: 'email.bounced',
      data: { bounce: { type: 'hard', code: '5.1.1' }, smtp: { code: 550, enhanced_code: '5.1.1' } },
    });
    expect((await s.api.get('/suppressions/bounce-1@example.test')).body).toMatchObject({ reason: 'bounce', sourceEmailId: first });

    const second = (await s.api.post('/emails', { ...base, to: 'Bounce-1@Example.test' })).body.id;
    const suppressed = await waitForEmail(s.api, second, isFinished);
    expect(suppressed.status).toBe('suppressed');
    expect(types(suppressed)).toEqual(['email.suppressed']);
    expect(sink.attempts('bounce-1@example.test')).toBe(1);
  });

  test('when the server answers 550 with no enhanced code ("No such user here"), then bounce.code is the 5.1.1 it was judged by, smtp keeps the reply as given, and the address is suppressed', async () => {
    const id = (await s.api.post('/emails', { ...base, to: 'nouser-1@example.test' })).body.id;
    const bounced = await waitForEmail(s.api, id, isFinished);
    expect(bounced.events.find((e: any) => e.type === 'email.bounced')).toMatchObject({
      data: { bounce: { type: 'hard', code: '5.1.1', message: 'No such user here' }, smtp: { code: 550, enhanced_code: null, message: 'No such user here' } },
    });
    expect((await s.api.get('/suppressions/nouser-1@example.test')).status).toBe(200);
  });

  test('when recipients meet different fates, then each has its own status and the email summarises them', async () => {
    const to = ['ok-2@example.test', 'bounce-2@example.test', 'policy-2@example.test', 'defer-2@example.test'];
    const { id } = (await s.api.post('/emails', { ...base, to })).body;
    const email = await waitForEmail(s.api, id, isFinished);
    expect(Object.fromEntries(email.recipients.map((r: any) => [r.email, r.status]))).toEqual({
      'ok-2@example.test': 'delivered',
      'bounce-2@example.test': 'bounced',
      'policy-2@example.test': 'bounced',
      'defer-2@example.test': 'delivered',
    });
    expect(email.status).toBe('delivered');
    const policy = email.events.find((e: any) => e.type === 'email.bounced' && e.data.recipient === 'policy-2@example.test');
    expect(policy.data.bounce).toMatchObject({ type: 'policy', code: '5.7.1' });
    // Policy rejections do not suppress.
    expect((await s.api.get('/suppressions/policy-2@example.test')).status).toBe(404);
    expect((await s.api.get('/suppressions/bounce-2@example.test')).status).toBe(200);
    for (const r of to) expect(types(email, r)[0]).toBe('email.sent');
  });

  test('when an email is scheduled, then it waits until its time and is then delivered', async () => {
    const at = new Date(Date.now() + 1500);
    const { id } = (await s.api.post('/emails', { ...base, to: 'ok-3@example.test', scheduledAt: at.toISOString() })).body;
    expect((await s.api.get(`/emails/${id}`)).body.status).toBe('scheduled');
    const email = await waitForEmail(s.api, id, isFinished);
    expect(email.status).toBe('delivered');
    expect(new Date(email.events[0].created_at).getTime()).toBeGreaterThanOrEqual(at.getTime() - 50);
  });

  test('when an email has attachments, then the delivered message carries them intact', async () => {
    const bytes = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 256));
    const { id } = (await s.api.post('/emails', { ...base, to: 'ok-4@example.test', attachments: [{ filename: 'data.bin', content: bytes.toString('base64') }] })).body;
    await waitForEmail(s.api, id, isFinished);
    const message = sink.messages.find((m) => m.raw.includes(`<${id}@acme.test>`))!;
    const text = message.raw.toString('utf8');
    expect(text).toContain('filename=data.bin');
    const b64 = text.split('filename=data.bin')[1]!.split('\r\n\r\n')[1]!.split('\r\n--')[0]!.replace(/\s+/g, '');
    expect(Buffer.from(b64, 'base64').equals(bytes)).toBe(true);
  });
});

describe('direct MX delivery', () => {
  let sink: SmtpSink;
  let dns: DnsServer;
  beforeAll(async () => {
    sink = await new SmtpSink({ rcpt: rules }).start();
    dns = await new DnsServer({
      zone: {
        'example.test': { MX: [{ preference: 10, exchange: 'mx1.example.test' }] },
        'mx1.example.test': { A: ['127.0.0.1'] },
      },
    }).start();
  });
  afterAll(async () => {
    await dns.stop();
    await sink.stop();
  });

  test('when the resolver points at a DNS server, then mail goes to the MX it names', async () => {
    const s = await startSendingStack('sendmx', { MX_PORT: String(sink.port), DNS_SERVERS: dns.address, ALLOW_PRIVATE_NETWORKS: 'true' });
    try {
      const { id } = (await s.api.post('/emails', { ...base, to: 'ok-mx@example.test' })).body;
      const email = await waitForEmail(s.api, id, isFinished);
      expect(email.status).toBe('delivered');
      expect(dns.queries).toEqual(expect.arrayContaining([{ name: 'example.test', type: 'MX' }, { name: 'mx1.example.test', type: 'A' }]));
      expect(sink.messages.some((m) => m.recipients.includes('ok-mx@example.test'))).toBe(true);
    } finally {
      await s.close();
    }
  });

  test('when the MX resolves to a private address and private networks are not allowed, then nothing connects', async () => {
    const s = await startSendingStack('sendmxpriv', { MX_PORT: String(sink.port), DNS_SERVERS: dns.address });
    try {
      const before = sink.connections;
      const { id } = (await s.api.post('/emails', { ...base, to: 'ok-private@example.test' })).body;
      const email = await waitForEmail(s.api, id, isFinished);
      expect(FINAL.has(email.status)).toBe(true);
      expect(email.status).not.toBe('delivered');
      expect(sink.connections).toBe(before);
    } finally {
      await s.close();
    }
  });
});
