import { createHmac, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTransport } from 'nodemailer';
import { loadConfig } from '@mailroom/core';
import { startTestMx, type TestMx, until } from '../../../services/inbound-smtp/test/smtp-support';
import { type RunningSender, startSender } from '../../../services/sender/src/start-sender';
import { Receiver } from '../../../services/webhook-dispatcher/test/support';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { DnsServer } from '../../../test/support/dns-server';
import { startTestGateway, testEnv, type TestGateway } from '../../../test/support/gateway';
import { TcpProxy } from '../../../test/support/tcp-proxy';
import {
  Mailroom,
  MailroomConnectionError,
  MailroomError,
  MailroomTimeoutError,
  type Page,
  PagePromise,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
} from '../src/index';
import { rejectionOf } from './support/catch-error';
import { recordingFetch } from './support/recording-fetch';
import { answerError, answerJson, ScriptedServer } from './support/scripted-server';

/**
 * The client as an outside developer meets it: every snippet of packages/client/README.md and
 * the README's "Client library" section, copied as written (only addresses and ids adapted to
 * the test's servers), against a real gateway, sender and MX; and the promises of its prose
 * (errors, retries, lists, webhook verification) checked against DESIGN §4 and §5. Retries are
 * judged by counting the requests that reached a server, never by how long anything took.
 */

const PASSWORD = 'correct horse battery';
const { fetch, calls } = recordingFetch();
let database: TestDatabase;
let dns: DnsServer;
let t: TestGateway;
let sender: RunningSender;
let mx: TestMx;
let receiver: Receiver;
let baseUrl: string;
let owner: Mailroom;
let ownerEmail: string;
let projectId: string;
let apiToken: string;
/** The application's client: a full_access API key. */
let mailroom: Mailroom;
/** Someone else's project, for the 404 of a resource that is not ours. */
let stranger: Mailroom;

let counter = 0;
const uniqueEmail = () => `probe${++counter}-${randomBytes(3).toString('hex')}@example.com`;
const from = 'Acme <hello@acme.example>';
const callsTo = (method: string, pathname: string) => calls.filter((c) => c.method === method && c.url.pathname === pathname);

/** An API error as the contract says: its name and status, the message, and the X-Request-Id of the very answer. */
async function expectApiError(promise: PromiseLike<unknown>, name: string, statusCode: number): Promise<MailroomError> {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(MailroomError);
  expect({ name: error.name, statusCode: error.statusCode }).toEqual({ name, statusCode });
  expect(typeof error.message).toBe('string');
  expect(error.message.length).toBeGreaterThan(0);
  expect(error.requestId).toMatch(/\S/);
  expect(error.requestId).toBe(calls.at(-1)?.requestId);
  return error;
}

beforeAll(async () => {
  database = await createTestDatabase('client-probe');
  dns = await new DnsServer().start();
  const env = testEnv(database, {
    ALLOW_SIGNUP: 'true',
    ALLOW_PRIVATE_NETWORKS: 'true',
    DNS_SERVERS: dns.address,
    SMTP_RETRY_SCHEDULE: '1,1',
    LEASE_SECONDS: '5',
    RECONCILE_INTERVAL_SECONDS: '1',
  });
  t = await startTestGateway({ database, env });
  sender = await startSender(loadConfig(env));
  mx = await startTestMx({ database, env: { DNS_SERVERS: dns.address, RECONCILE_INTERVAL_SECONDS: '1' } });
  receiver = await new Receiver().start();
  baseUrl = t.gateway.url;

  ownerEmail = uniqueEmail();
  const signup = await Mailroom.signup({ baseUrl, fetch, email: ownerEmail, password: PASSWORD, projectName: 'Acme' });
  projectId = signup.project.id;
  owner = new Mailroom({ baseUrl, fetch, sessionToken: signup.sessionToken, projectId });
  apiToken = (await owner.apiKeys.create({ name: 'probe app', permission: 'full_access' })).token;
  mailroom = new Mailroom({ apiToken, baseUrl, fetch });

  const other = await Mailroom.signup({ baseUrl, fetch, email: uniqueEmail(), password: PASSWORD, projectName: 'Other' });
  const otherSession = new Mailroom({ baseUrl, fetch, sessionToken: other.sessionToken, projectId: other.project.id });
  stranger = new Mailroom({ baseUrl, fetch, apiToken: (await otherSession.apiKeys.create({ name: 'other' })).token });
}, 60_000);

afterAll(async () => {
  await receiver?.stop();
  await mx?.close();
  await sender?.stop();
  await t?.close();
  await dns?.stop();
});

describe('Construct', () => {
  test('when the base URL has no trailing slash, one, or several, then every form reaches the same API paths', async () => {
    for (const url of [baseUrl, `${baseUrl}/`, `${baseUrl}//`]) {
      const client = new Mailroom({ apiToken, baseUrl: url, fetch });
      expect((await client.projects.list()).data.map((p) => p.id)).toEqual([projectId]);
      expect(calls.at(-1)!.url.pathname).toBe('/projects');
    }
  });

  test('when the README constructs a client from MAILROOM_API_KEY, then it works when the variable is set and throws a TypeError when it is not', async () => {
    const saved = process.env.MAILROOM_API_KEY;
    try {
      process.env.MAILROOM_API_KEY = apiToken;
      const fromEnv = new Mailroom({ apiToken: process.env.MAILROOM_API_KEY!, baseUrl, fetch });
      expect((await fromEnv.projects.list()).object).toBe('list');
      delete process.env.MAILROOM_API_KEY;
      expect(() => new Mailroom({ apiToken: process.env.MAILROOM_API_KEY!, baseUrl })).toThrow(TypeError);
    } finally {
      if (saved === undefined) delete process.env.MAILROOM_API_KEY;
      else process.env.MAILROOM_API_KEY = saved;
    }
  });

  test('when a person logs in as the README shows, then the session acts in one of their projects', async () => {
    const { sessionToken, projects } = await Mailroom.login({ baseUrl, email: ownerEmail, password: PASSWORD, fetch });
    const asOwner = new Mailroom({ sessionToken, projectId: projects[0]!.id, baseUrl, fetch });
    expect((await asOwner.projects.get(projectId)).id).toBe(projectId);
  });

  test('when the README quick start runs, then the email is sent and its status read', async () => {
    const client = new Mailroom({ apiToken, baseUrl, fetch });
    const { id } = await client.emails.send({ from: 'Acme <hello@acme.example>', to: 'ada@example.com', subject: 'Welcome', text: 'Hi Ada' });
    expect(['queued', 'sent', 'delivery_delayed', 'delivered', 'bounced', 'failed']).toContain((await client.emails.get(id)).status);
  });

  test('when no baseUrl is given, then the default is http://localhost:3000, and the given fetch is the one used', async () => {
    const seen: string[] = [];
    const recorder: typeof globalThis.fetch = async (input) => {
      seen.push(String(input));
      return new Response(JSON.stringify({ object: 'list', data: [], hasMore: false }), { headers: { 'content-type': 'application/json' } });
    };
    await new Mailroom({ apiToken: 'mr_x', fetch: recorder }).routes.list();
    expect(seen).toEqual(['http://localhost:3000/routes']);
  });

  test('when both or neither credential is given, then it throws a TypeError saying what is wrong', () => {
    expect(() => new Mailroom({ apiToken: 'mr_x', sessionToken: 's', projectId: 'proj_1' } as never)).toThrow(/not both/);
    expect(() => new Mailroom({} as never)).toThrow(TypeError);
  });
});

describe('Emails', () => {
  test('when the README send, get, batch, cancel, clicks and list snippets run, then each answers as described', async () => {
    const userId = randomBytes(4).toString('hex');
    const { id } = await mailroom.emails.send(
      { from: 'Acme <hello@acme.example>', to: ['delivered@sandbox.mailroom.test'], subject: 'Welcome', html: '<p>Hi Ada <a href="https://acme.example/start">start</a></p>', trackOpens: true },
      { idempotencyKey: `welcome-${userId}` },
    );
    expect(id).toMatch(/^em_/);
    expect(calls.at(-1)!.headers.get('idempotency-key')).toBe(`welcome-${userId}`);

    // recipients, status, the event timeline
    let email = await mailroom.emails.get(id);
    await until(async () => {
      email = await mailroom.emails.get(id);
      return email.status === 'delivered';
    }, 20_000, 'the email to be delivered');
    expect(email.recipients).toEqual([expect.objectContaining({ email: 'delivered@sandbox.mailroom.test', status: 'delivered' })]);
    expect(email.trackOpens).toBe(true);
    const types = email.events.map((e) => e.type);
    expect(types.slice(0, 2)).toEqual(['email.sent', 'email.delivered']);
    for (const event of email.events) {
      expect(event).toEqual({ id: expect.stringMatching(/^evt_/), type: expect.any(String), created_at: expect.any(String), data: expect.objectContaining({ email_id: id, recipient: 'delivered@sandbox.mailroom.test' }) });
    }

    const { data } = await mailroom.emails.batch([
      { from, to: 'a@example.com', subject: 'A', text: 'A' },
      { from, to: 'b@example.com', subject: 'B', text: 'B' },
    ]);
    // `unsigned: true` too: acme.example is not a verified domain here (the gateway's documented addition).
    expect(data).toEqual([expect.objectContaining({ id: expect.stringMatching(/^em_/) }), expect.objectContaining({ id: expect.stringMatching(/^em_/) })]);

    const { id: scheduledId } = await mailroom.emails.send({ from, to: 'later@example.com', subject: 'Later', text: 'Later', scheduledAt: new Date(Date.now() + 86_400_000).toISOString() });
    expect(await mailroom.emails.cancel(scheduledId)).toMatchObject({ id: scheduledId, status: 'canceled' });
    await expectApiError(mailroom.emails.cancel(scheduledId), 'conflict', 409);

    const { data: links } = await mailroom.emails.clicks(id);
    expect(Array.isArray(links)).toBe(true);

    const { id: bouncedId } = await mailroom.emails.send({ from, to: 'bounced@sandbox.mailroom.test', subject: 'Bounce', text: 'x' });
    await until(async () => (await mailroom.emails.get(bouncedId)).status === 'bounced', 20_000, 'the email to bounce');
    const bounced: string[] = [];
    for await (const summary of mailroom.emails.list({ status: 'bounced' })) bounced.push(`${summary.id} ${summary.to.join(',')}`);
    // The batch's example.com addresses may have bounced too (the test DNS server knows no such domain).
    expect(bounced).toContain(`${bouncedId} bounced@sandbox.mailroom.test`);
  });

  test('when a send repeats its idempotency key with the same body, then it answers the first id and sends nothing again', async () => {
    const key = `order-${randomBytes(4).toString('hex')}`;
    const body = { from, to: 'delivered@sandbox.mailroom.test', subject: `Order ${key}`, text: 'Thanks' };
    const first = await mailroom.emails.send(body, { idempotencyKey: key });
    const again = await mailroom.emails.send(body, { idempotencyKey: key });
    expect(again.id).toBe(first.id);
    const sent = (await mailroom.emails.list({ to: 'delivered@sandbox.mailroom.test', limit: 100 }).toArray()).filter((e) => e.subject === `Order ${key}`);
    expect(sent.map((e) => e.id)).toEqual([first.id]);
  });

  test('when a send repeats its key with another body, then it is 409 invalid_idempotent_request, tried once', async () => {
    const key = `clash-${randomBytes(4).toString('hex')}`;
    await mailroom.emails.send({ from, to: 'delivered@sandbox.mailroom.test', subject: 'One', text: '1' }, { idempotencyKey: key });
    const before = callsTo('POST', '/emails').length;
    await expectApiError(mailroom.emails.send({ from, to: 'delivered@sandbox.mailroom.test', subject: 'Two', text: '2' }, { idempotencyKey: key }), 'invalid_idempotent_request', 409);
    expect(callsTo('POST', '/emails').length - before).toBe(1);
  });

  test('when a batch repeats its key, then the same body answers the same ids and another body is 409', async () => {
    const key = `batch-${randomBytes(4).toString('hex')}`;
    const batch = [{ from, to: 'a@example.com', subject: 'A', text: 'A' }];
    const first = await mailroom.emails.batch(batch, { idempotencyKey: key });
    expect((await mailroom.emails.batch(batch, { idempotencyKey: key })).data).toEqual(first.data);
    await expectApiError(mailroom.emails.batch([{ ...batch[0]!, subject: 'B' }], { idempotencyKey: key }), 'invalid_idempotent_request', 409);
  });

  test('when two identical keyed sends go at once, then both answer the one email (a 409 concurrent_idempotent_requests is retried)', async () => {
    const key = `twice-${randomBytes(4).toString('hex')}`;
    const body = { from, to: 'delivered@sandbox.mailroom.test', subject: `Twice ${key}`, text: 'x' };
    const [a, b] = await Promise.all([mailroom.emails.send(body, { idempotencyKey: key }), mailroom.emails.send(body, { idempotencyKey: key })]);
    expect(a.id).toBe(b.id);
    const sent = (await mailroom.emails.list({ to: 'delivered@sandbox.mailroom.test', limit: 100 }).toArray()).filter((e) => e.subject === `Twice ${key}`);
    expect(sent.map((e) => e.id)).toEqual([a.id]);
  });

  test('when an idempotency key is longer than 256 characters, then it is 400 invalid_idempotency_key', async () => {
    await expectApiError(mailroom.emails.send({ from, to: 'a@example.com', subject: 'x', text: 'x' }, { idempotencyKey: 'k'.repeat(257) }), 'invalid_idempotency_key', 400);
  });
});

describe('Lists', () => {
  const to = `lists-${randomBytes(3).toString('hex')}@example.com`;
  const ids: string[] = [];
  beforeAll(async () => {
    for (const subject of ['1', '2', '3', '4', '5']) ids.unshift((await mailroom.emails.send({ from, to, subject, text: subject })).id);
  });

  test('when a list is awaited, then it is one page, newest first, with hasMore', async () => {
    const first = await mailroom.emails.list({ to, limit: 2 });
    expect(first).toEqual({ object: 'list', data: [expect.objectContaining({ id: ids[0] }), expect.objectContaining({ id: ids[1] })], hasMore: true });
  });

  test('when a list is iterated, then every item comes once, in order, each page fetched after the last id', async () => {
    const before = calls.length;
    const seen: string[] = [];
    for await (const email of mailroom.emails.list({ to, limit: 2 })) seen.push(email.id);
    expect(seen).toEqual(ids);
    const pages = calls.slice(before);
    expect(pages.map((c) => c.url.searchParams.get('after'))).toEqual([null, ids[1], ids[3]]);
  });

  test('when toArray is given a limit, then it answers that many and fetches no page it does not need', async () => {
    const before = calls.length;
    expect((await mailroom.emails.list({ to, limit: 2 }).toArray(2)).map((e) => e.id)).toEqual(ids.slice(0, 2));
    expect(calls.length - before).toBe(1);
    expect((await mailroom.emails.list({ to, limit: 2 }).toArray(3)).map((e) => e.id)).toEqual(ids.slice(0, 3));
    expect((await mailroom.emails.list({ to }).toArray()).map((e) => e.id)).toEqual(ids);
  });

  test('when iteration stops early, then no further page is fetched', async () => {
    const before = calls.length;
    for await (const email of mailroom.emails.list({ to, limit: 2 })) {
      if (email.id === ids[1]) break;
    }
    expect(calls.length - before).toBe(1);
  });

  test('when the cursor is the last id, then the page is empty without more', async () => {
    expect(await mailroom.emails.list({ to, after: ids.at(-1)! })).toEqual({ object: 'list', data: [], hasMore: false });
    const routes = await mailroom.routes.list().toArray();
    expect(Array.isArray(routes)).toBe(true);
  });

  test('when the limit is outside 1-100, then it is a validation_error', async () => {
    await expectApiError(mailroom.emails.list({ limit: 0 }), 'validation_error', 422);
    await expectApiError(mailroom.emails.list({ limit: 101 }), 'validation_error', 422);
  });

  test('then a list is a PagePromise you can await or iterate', () => {
    const list = mailroom.routes.list();
    expect(list).toBeInstanceOf(PagePromise);
    const typed: PromiseLike<Page<unknown>> & AsyncIterable<unknown> = list;
    return typed.then((page) => expect(page.object).toBe('list'));
  });
});

describe('Received emails', () => {
  test('when mail arrives at a route, then the README snippet lists it, reads it, and downloads its raw bytes and attachment', async () => {
    const route = await mailroom.routes.create({ match: '*@inbox.acme.test', name: 'Inbox' });
    const attachment = Buffer.from([0, 1, 2, 255, 13, 10]);
    const info = await createTransport({ host: '127.0.0.1', port: mx.mx.port, secure: false, ignoreTLS: true }).sendMail({
      from: 'zoe@example.test',
      to: 'orders@inbox.acme.test',
      subject: 'Order 7',
      text: 'Ship it.',
      attachments: [{ filename: 'data.bin', content: attachment, contentType: 'application/octet-stream' }],
    });
    const inbound = /inb_[0-9A-Z]{26}/.exec(info.response)?.[0];
    expect(inbound).toBeDefined();
    await until(async () => (await mailroom.receivedEmails.list({ routeId: route.id })).data.length > 0, 20_000, 'the received email to be listed');

    const page = await mailroom.receivedEmails.list({ routeId: route.id, limit: 50 });
    await until(async () => (await mailroom.receivedEmails.get(page.data[0]!.id)).authentication !== null, 20_000, 'the received email to be processed');
    const received = await mailroom.receivedEmails.get(page.data[0]!.id);
    expect(received).toMatchObject({ object: 'received_email', id: inbound, routeId: route.id, subject: 'Order 7' });
    const raw: Uint8Array = await mailroom.receivedEmails.raw(received.id);
    expect(Buffer.from(raw).toString('latin1')).toContain('Subject: Order 7');
    const file: Uint8Array = await mailroom.receivedEmails.attachment(received.id, received.attachments[0]!.id);
    expect(Buffer.from(file).equals(attachment)).toBe(true);
    await mailroom.routes.remove(route.id);
  });
});

describe('Routes', () => {
  test('when the README routes snippet runs, then the route is created, renamed, listed, read and removed', async () => {
    const route = await mailroom.routes.create({ match: '*@support.acme.example', name: 'Support' });
    expect(await mailroom.routes.update(route.id, { name: 'Support desk' })).toMatchObject({ id: route.id, name: 'Support desk' });
    const routes = await mailroom.routes.list();
    expect(routes.data.map((r) => r.id)).toContain(route.id);
    expect(await mailroom.routes.get(route.id)).toMatchObject({ object: 'route', match: '*@support.acme.example' });
    expect(await mailroom.routes.remove(route.id)).toEqual({ object: 'route', id: route.id, deleted: true });
  });
});

describe('Sending domains', () => {
  test('when the README domains snippet runs, then records come to publish, verify answers a status, and DKIM rotates', async () => {
    const domain = await mailroom.domains.create({ name: 'acme.example' });
    for (const record of domain.records) expect([record.type, record.name, record.value].every((v) => typeof v === 'string')).toBe(true);
    const checked = await mailroom.domains.verify(domain.id);
    expect(['pending', 'verified', 'failed']).toContain(checked.status);
    expect((await mailroom.domains.rotateDkim(domain.id)).id).toBe(domain.id);
    expect((await mailroom.domains.list()).data.map((d) => d.id)).toContain(domain.id);
    expect((await mailroom.domains.get(domain.id)).name).toBe('acme.example');
    expect(await mailroom.domains.remove(domain.id)).toEqual({ object: 'domain', id: domain.id, deleted: true });
  });
});

describe('API keys', () => {
  test('when the README keys snippet runs, then the token is shown once, listed by its start, and refused once revoked', async () => {
    const key = await mailroom.apiKeys.create({ name: 'web app', permission: 'sending_access' });
    expect(key.token).toMatch(/^mr_/);
    const listed: { name: string; tokenStart: string }[] = [];
    for await (const k of mailroom.apiKeys.list()) listed.push({ name: k.name, tokenStart: k.tokenStart });
    const shown = listed.find((k) => k.name === 'web app')!;
    expect(shown.tokenStart.length).toBeGreaterThan(3);
    expect(key.token.startsWith(shown.tokenStart)).toBe(true);
    await mailroom.apiKeys.revoke(key.id);
    const revoked = new Mailroom({ apiToken: key.token, baseUrl, fetch });
    await expectApiError(revoked.emails.send({ from, to: 'a@example.com', subject: 'x', text: 'x' }), 'invalid_api_key', 403);
  });
});

describe('Projects and members', () => {
  test('when the README projects and members snippet runs with an owner session, then each call answers as described', async () => {
    const grace = await Mailroom.signup({ baseUrl, fetch, email: uniqueEmail(), password: PASSWORD });
    const project = await owner.projects.create({ name: 'Newsletter', trackClicks: true });
    expect(project).toMatchObject({ object: 'project', name: 'Newsletter', trackClicks: true });
    expect(await owner.projects.update(project.id, { trackOpens: true })).toMatchObject({ trackOpens: true });
    const { data: projects } = await owner.projects.list();
    expect(projects.map((p) => p.id)).toContain(project.id);
    expect((await owner.projects.get(project.id)).id).toBe(project.id);

    await owner.members.add(project.id, { email: grace.user.email, role: 'member' });
    const { data: members } = await owner.members.list(project.id);
    expect(members.map((m) => m.email)).toEqual(expect.arrayContaining([ownerEmail, grace.user.email]));
    const graceMember = members.find((m) => m.email === grace.user.email)!;
    expect(await owner.members.remove(project.id, graceMember.id)).toMatchObject({ deleted: true });
  });

  test('when an API key acts on another project than its own, as the README snippet mixes them, then it is not_found', async () => {
    const project = await owner.projects.create({ name: 'Elsewhere' });
    await expectApiError(mailroom.projects.update(project.id, { trackOpens: true }), 'not_found', 404);
    await expectApiError(mailroom.members.list(project.id), 'not_found', 404);
  });
});

describe('Webhook endpoints', () => {
  test('when the README webhooks snippet runs, then the endpoint is managed, tested, replayed, recovered and removed', async () => {
    const endpoint = await mailroom.webhooks.create({ url: `${receiver.url}?crud`, events: ['email.delivered', 'email.bounced'] });
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect(await mailroom.webhooks.update(endpoint.id, { enabled: false })).toMatchObject({ enabled: false, disabledReason: 'manual' });
    const listed: string[] = [];
    for await (const w of mailroom.webhooks.list()) listed.push(`${w.url} ${w.enabled} ${w.disabledReason}`);
    expect(listed).toContain(`${receiver.url}?crud false manual`);
    expect(await mailroom.webhooks.get(endpoint.id)).not.toHaveProperty('secret');
    const { secret } = await mailroom.webhooks.rotateSecret(endpoint.id);
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(endpoint.secret);

    receiver.answer = () => ({ status: 500, body: 'down' });
    const attempt = await mailroom.webhooks.test(endpoint.id);
    expect(attempt).toMatchObject({ object: 'webhook_attempt', eventType: 'webhook.test', success: false, responseStatus: 500 });
    const failed: string[] = [];
    for await (const a of mailroom.webhooks.attempts(endpoint.id, { success: 'false' })) failed.push(`${a.eventType} ${a.responseStatus} ${a.error}`);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatch(/^webhook\.test 500 /);

    receiver.answer = () => ({ status: 200, body: 'ok' });
    expect(await mailroom.webhooks.replay(endpoint.id)).toMatchObject({ eventId: attempt.eventId, success: true, trigger: 'manual' });
    await expectApiError(mailroom.webhooks.replay(endpoint.id), 'not_found', 404);
    expect(await mailroom.webhooks.recover(endpoint.id, { since: new Date(Date.now() - 86_400_000).toISOString() })).toMatchObject({ object: 'webhook_recovery', webhookId: endpoint.id });
    expect(await mailroom.webhooks.remove(endpoint.id)).toEqual({ object: 'webhook', id: endpoint.id, deleted: true });
  });
});

describe('Suppressions', () => {
  test('when the README suppressions snippet runs, then the address is listed, read and removed', async () => {
    await t.gateway.ctx.db.suppression.create({ data: { projectId, address: 'gone@example.com', reason: 'bounce', detail: '550 5.1.1 no such user' } });
    const listed: string[] = [];
    for await (const s of mailroom.suppressions.list()) listed.push(`${s.email} ${s.reason}`);
    expect(listed).toContain('gone@example.com bounce');
    expect(await mailroom.suppressions.get('gone@example.com')).toMatchObject({ object: 'suppression', email: 'gone@example.com' });
    expect(await mailroom.suppressions.remove('gone@example.com')).toMatchObject({ deleted: true });
  });
});

describe('Stats', () => {
  test('when the README stats snippet runs, then buckets, totals and rates come back counting the mail sent above', async () => {
    const stats = await mailroom.stats.get({ from: '2026-11-01T00:00:00Z', interval: 'day' });
    for (const day of stats.data) expect([day.start, day.sent, day.delivered, day.bounced, day.opened].every((v) => v !== undefined)).toBe(true);
    expect(stats.data.length).toBeGreaterThan(20);
    expect(stats.totals.sent).toBeGreaterThan(0);
    expect(typeof stats.bounceRate).toBe('number');
    expect(typeof stats.complaintRate).toBe('number');
  });
});

describe('Sessions', () => {
  test('when the README sessions snippet runs, then the session is refused everywhere after logout', async () => {
    const email = uniqueEmail();
    const password = PASSWORD;
    const { sessionToken, user, project } = await Mailroom.signup({ baseUrl, email, password, projectName: 'Acme', fetch });
    expect(user.email).toBe(email);
    const { sessionToken: again, projects } = await Mailroom.login({ baseUrl, email, password, fetch });
    expect(projects.map((p) => p.id)).toEqual([project.id]);
    await new Mailroom({ baseUrl, sessionToken, projectId: project.id, fetch }).auth.logout();
    await expectApiError(new Mailroom({ baseUrl, sessionToken, projectId: project.id, fetch }).routes.list(), 'invalid_session', 401);
    expect((await new Mailroom({ baseUrl, sessionToken: again, projectId: project.id, fetch }).routes.list()).object).toBe('list');
  });
});

describe('Errors', () => {
  test('when the key is unknown, then it is 403 invalid_api_key (DESIGN §4), with message and request id', async () => {
    const bad = new Mailroom({ apiToken: `mr_${randomBytes(32).toString('base64url')}`, baseUrl, fetch });
    await expectApiError(bad.emails.list(), 'invalid_api_key', 403);
  });

  test('when a session token is not one, then it is 401 invalid_session', async () => {
    await expectApiError(new Mailroom({ sessionToken: 'not-a-token', projectId, baseUrl, fetch }).routes.list(), 'invalid_session', 401);
  });

  test('when a resource is another project’s, then it is 404 not_found', async () => {
    const route = await mailroom.routes.create({ match: 'mine@acme.test' });
    await expectApiError(stranger.routes.get(route.id), 'not_found', 404);
    await expectApiError(stranger.routes.remove(route.id), 'not_found', 404);
  });

  test('when a send is invalid, then the 422 names the field; a missing one is missing_required_field', async () => {
    const invalid = await expectApiError(mailroom.emails.send({ from: 'not an address', to: 'a@example.com', subject: 'x', text: 'x' }), 'validation_error', 422);
    expect(invalid.message).toMatch(/from/);
    const missing = await expectApiError(mailroom.emails.send({ from, subject: 'x', text: 'x' } as never), 'missing_required_field', 422);
    expect(missing.message).toMatch(/to/);
  });

  test('when a body is over 1 MB (not a send), then it is 413 payload_too_large, tried once', async () => {
    const before = callsTo('POST', '/routes').length;
    await expectApiError(mailroom.routes.create({ match: 'big@acme.test', name: 'x'.repeat(1_100_000) }), 'payload_too_large', 413);
    expect(callsTo('POST', '/routes').length - before).toBe(1);
  });

  test('when a send is over 40 MB, then it is 413 payload_too_large, tried once', async () => {
    const before = callsTo('POST', '/emails').length;
    const content = Buffer.alloc(31 * 1024 * 1024, 7).toString('base64');
    await expectApiError(mailroom.emails.send({ from, to: 'a@example.com', subject: 'big', text: 'x', attachments: [{ filename: 'big.bin', content }] }), 'payload_too_large', 413);
    expect(callsTo('POST', '/emails').length - before).toBe(1);
  }, 60_000);

  test('when the README error snippet catches an API error, then the documented fields are there', async () => {
    let caught: string | undefined;
    try {
      await mailroom.emails.send({ from, to: 'a@example.com', subject: 'x' } as never);
    } catch (error) {
      if (error instanceof MailroomError) caught = `${error.name} ${error.statusCode} ${error.requestId !== null}`;
      else if (error instanceof MailroomTimeoutError || error instanceof MailroomConnectionError) caught = 'no answer';
      else throw error;
    }
    expect(caught).toBe('missing_required_field 422 true');
  });
});

describe('Retries, timeouts and aborts', () => {
  describe('against a real gateway allowing one request per second', () => {
    let limited: TestGateway;
    let key: string;
    beforeAll(async () => {
      limited = await startTestGateway({ label: 'client-probe-rate', env: { RATE_LIMIT_PER_SECOND: '1', ALLOW_SIGNUP: 'true' } });
      const signup = await Mailroom.signup({ baseUrl: limited.gateway.url, email: uniqueEmail(), password: PASSWORD });
      key = (await new Mailroom({ baseUrl: limited.gateway.url, sessionToken: signup.sessionToken, projectId: signup.project.id }).apiKeys.create({ name: 'k' })).token;
    });
    afterAll(() => limited.close());

    test('when reads exceed the limit with retries off, then the refused ones are 429 rate_limit_exceeded with Retry-After and the ratelimit headers', async () => {
      const rec = recordingFetch();
      const client = new Mailroom({ apiToken: key, baseUrl: limited.gateway.url, fetch: rec.fetch, maxRetries: 0 });
      const results = await Promise.allSettled([1, 2, 3, 4].map(() => client.routes.list()));
      const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason);
      expect(refused.length).toBeGreaterThan(0);
      expect(rec.calls).toHaveLength(4);
      for (const error of refused) {
        expect(error).toBeInstanceOf(MailroomError);
        expect(error).toMatchObject({ name: 'rate_limit_exceeded', statusCode: 429 });
        expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
        expect(rec.calls.map((c) => c.requestId)).toContain(error.requestId);
      }
      const limitedCall = rec.calls.find((c) => c.status === 429)!;
      for (const header of ['retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) expect(limitedCall.responseHeaders!.get(header)).not.toBeNull();
    });

    test('when a send and a route creation are refused with 429, then the send is retried with its key and the route creation is not', async () => {
      const rec = recordingFetch();
      const client = new Mailroom({ apiToken: key, baseUrl: limited.gateway.url, fetch: rec.fetch });
      const results = await Promise.allSettled([
        ...[1, 2, 3].map((n) => client.routes.create({ match: `r${n}-${randomBytes(3).toString('hex')}@acme.test` })),
        client.emails.send({ from, to: 'delivered@sandbox.mailroom.test', subject: 'limited', text: 'x' }),
      ]);
      // Each route creation went out once, whatever it was answered.
      expect(rec.calls.filter((c) => c.url.pathname === '/routes')).toHaveLength(3);
      const routeRefusals = results.slice(0, 3).filter((r) => r.status === 'rejected');
      expect(routeRefusals.length).toBeGreaterThan(0);
      for (const r of routeRefusals) expect((r as PromiseRejectedResult).reason).toMatchObject({ name: 'rate_limit_exceeded' });
      // The send's tries all carry one generated key; every 429 it met was tried again.
      const sends = rec.calls.filter((c) => c.url.pathname === '/emails');
      expect(new Set(sends.map((c) => c.headers.get('idempotency-key'))).size).toBe(1);
      expect(sends[0]!.headers.get('idempotency-key')).toMatch(/^[0-9a-f]{32}$/);
      if (results[3]!.status === 'fulfilled') expect(sends.at(-1)!.status).toBe(200);
      else expect(sends).toHaveLength(3);
    });
  });

  describe('against a real gateway behind a proxy that drops the first response', () => {
    let proxy: TcpProxy;
    let proxyUrl: string;
    beforeEach(async () => {
      proxy = await new TcpProxy('127.0.0.1', Number(new URL(baseUrl).port), { dropResponses: 1 }).start();
      proxyUrl = `http://127.0.0.1:${proxy.port}`;
    });
    afterEach(() => proxy.stop());

    test('when a read loses its answer, then it is tried again and answers', async () => {
      const client = new Mailroom({ apiToken, baseUrl: proxyUrl });
      expect((await client.routes.list()).object).toBe('list');
      expect(proxy.connections).toBe(2);
    });

    test('when a send without a key loses its answer, then the retry sends it once', async () => {
      const client = new Mailroom({ apiToken, baseUrl: proxyUrl });
      const subject = `lost-${randomBytes(3).toString('hex')}`;
      const { id } = await client.emails.send({ from, to: 'delivered@sandbox.mailroom.test', subject, text: 'x' });
      expect(proxy.dropped).toBe(1);
      const sent = (await mailroom.emails.list({ to: 'delivered@sandbox.mailroom.test', limit: 100 }).toArray()).filter((e) => e.subject === subject);
      expect(sent.map((e) => e.id)).toEqual([id]);
    });

    test('when a DELETE or a non-send POST loses its answer, then it is not tried again', async () => {
      const route = await mailroom.routes.create({ match: `del-${randomBytes(3).toString('hex')}@acme.test` });
      const client = new Mailroom({ apiToken, baseUrl: proxyUrl, maxRetries: 5 });
      expect(await rejectionOf(client.routes.remove(route.id))).toBeInstanceOf(MailroomConnectionError);
      expect(proxy.connections).toBe(1);
    });

    test('when retries are off for one call, then a lost read is a MailroomConnectionError', async () => {
      const client = new Mailroom({ apiToken, baseUrl: proxyUrl });
      expect(await rejectionOf(client.routes.list(undefined, { maxRetries: 0 }))).toBeInstanceOf(MailroomConnectionError);
      expect(proxy.connections).toBe(1);
    });
  });

  describe('against a scripted server', () => {
    let server: ScriptedServer;
    afterEach(() => server?.stop());

    test('when nothing answers within the per-call timeoutMs, then each try times out and MailroomTimeoutError is thrown', async () => {
      server = await new ScriptedServer(() => undefined).start();
      const client = new Mailroom({ apiToken: 'mr_x', baseUrl: server.url, maxRetries: 1 });
      const error = await rejectionOf(client.emails.get('em_1', { timeoutMs: 100 }));
      expect(error).toBeInstanceOf(MailroomTimeoutError);
      expect(server.requests).toHaveLength(2);
    });

    test('when a send is still being processed (409 concurrent_idempotent_requests), then it is retried with the same key', async () => {
      server = await new ScriptedServer((n, _req, res) => (n === 1 ? answerError(res, 409, 'concurrent_idempotent_requests', { 'retry-after': '0' }) : answerJson(res, { id: 'em_1' }))).start();
      expect(await new Mailroom({ apiToken: 'mr_x', baseUrl: server.url }).emails.send({ from, to: 'a@example.com', subject: 's', text: 's' }, { idempotencyKey: 'mine' })).toEqual({ id: 'em_1' });
      expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual(['mine', 'mine']);
    });

    test('when a 503 keeps coming, then a read is tried 1 + maxRetries times', async () => {
      server = await new ScriptedServer((_n, _req, res) => answerError(res, 503, 'service_unavailable', { 'retry-after': '0' })).start();
      expect(await rejectionOf(new Mailroom({ apiToken: 'mr_x', baseUrl: server.url }).routes.list())).toMatchObject({ name: 'service_unavailable', statusCode: 503 });
      expect(server.requests).toHaveLength(3);
    });

    test('when the caller aborts, then the call rejects with the signal’s reason', async () => {
      server = await new ScriptedServer(() => undefined).start();
      const client = new Mailroom({ apiToken: 'mr_x', baseUrl: server.url });
      const reason = new Error('user left');
      expect(await rejectionOf(client.routes.list(undefined, { signal: AbortSignal.abort(reason) }))).toBe(reason);
      const controller = new AbortController();
      const pending = client.emails.send({ from, to: 'a@example.com', subject: 's', text: 's' }, { signal: controller.signal });
      await until(async () => server.requests.length > 0, 10_000, 'the request to arrive');
      controller.abort(reason);
      expect(await rejectionOf(pending)).toBe(reason);
      expect(server.requests).toHaveLength(1);
    });

    test('when an answer is not Mailroom error JSON (a proxy page), then it is a MailroomError named unexpected_response', async () => {
      server = await new ScriptedServer((_n, _req, res) => {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end('<html>Bad gateway</html>');
      }).start();
      const error = await rejectionOf(new Mailroom({ apiToken: 'mr_x', baseUrl: server.url }).routes.list());
      expect(error).toBeInstanceOf(MailroomError);
      expect(error).toMatchObject({ name: 'unexpected_response', statusCode: 502 });
    });

    test('when a page of an iterated list is aborted, then iteration rejects with the reason', async () => {
      server = await new ScriptedServer(() => undefined).start();
      const reason = new Error('stop');
      const list = new Mailroom({ apiToken: 'mr_x', baseUrl: server.url }).routes.list(undefined, { signal: AbortSignal.abort(reason) });
      expect(await rejectionOf((async () => {
        for await (const _ of list) void _;
      })())).toBe(reason);
    });
  });
});

/** A delivery signed as DESIGN §5 says, with node:crypto: Standard Webhooks and X-Service-Signature. */
function signed(secrets: string[], body: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
  const id = 'evt_01KAQ4B2C3D4E5F6G7H8J9K0MN';
  const v1 = (secret: string) => `v1,${createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
  const newest = secrets.at(-1)!;
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map(v1).join(' '),
    'x-service-signature': `sha256=${createHmac('sha256', Buffer.from(newest, 'utf8')).update(body).digest('hex')}`,
    'x-service-event-id': id,
    'x-service-event-type': 'email.bounced',
    'x-service-timestamp': String(timestamp),
  };
}

describe('verifyWebhook', () => {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const body = JSON.stringify({
    id: 'evt_01KAQ4B2C3D4E5F6G7H8J9K0MN',
    type: 'email.bounced',
    created_at: '2026-11-24T10:00:00.000Z',
    data: { email_id: 'em_1', from, to: ['ada@example.com'], subject: 'Hi', tags: [], recipient: 'ada@example.com', attempt: 1, smtp: { code: 550, enhanced_code: '5.1.1', message: 'No such user' }, bounce: { type: 'hard', code: '5.1.1', message: 'No such user' } },
  });

  /** The README's express handler, on node:http with the raw body as a Buffer, as express.raw gives it. */
  async function expressLike(handlerSecret: string): Promise<{ server: Server; url: string; bounced: string[] }> {
    const bounced: string[] = [];
    const server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        try {
          const event = await verifyWebhook({ payload: Buffer.concat(chunks), headers: req.headers, secret: handlerSecret });
          if (event.type === 'email.bounced') bounced.push(`${event.data.recipient} ${event.data.bounce.type}`);
          res.writeHead(204).end();
        } catch (error) {
          if (error instanceof WebhookVerificationError) res.writeHead(400).end(error.message);
          else res.writeHead(500).end(String(error));
        }
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/mailroom`, bounced };
  }

  async function post(url: string, payload: string, headers: Record<string, string>): Promise<number> {
    return (await globalThis.fetch(url, { method: 'POST', body: payload, headers })).status;
  }

  test('when a delivery is valid, tampered, signed with another secret or old, then the express-style handler answers 204, 400, 400, 400', async () => {
    const handler = await expressLike(secret);
    try {
      expect(await post(handler.url, body, signed([secret], body))).toBe(204);
      expect(handler.bounced).toEqual(['ada@example.com hard']);
      expect(await post(handler.url, body.replace('"hard"', '"soft"'), signed([secret], body))).toBe(400);
      expect(await post(handler.url, body, signed([`whsec_${randomBytes(24).toString('base64')}`], body))).toBe(400);
      expect(await post(handler.url, body, signed([secret], body, Math.floor(Date.now() / 1000) - 301))).toBe(400);
    } finally {
      handler.server.close();
    }
  });

  test('when the secret was rotated, then a delivery signed with both verifies with the new secret and with the old one, as sent', async () => {
    const rotated = `whsec_${randomBytes(24).toString('base64')}`;
    const headers = signed([secret, rotated], body);
    expect((await verifyWebhook({ payload: body, headers, secret: rotated })).type).toBe('email.bounced');
    expect((await verifyWebhook({ payload: body, headers, secret })).type).toBe('email.bounced');
  });

  test('when the README fetch-style handler gets a delivery, then it narrows the event by type', async () => {
    const request = new Request('http://app.test/hook', { method: 'POST', body, headers: signed([secret], body) });
    let event: WebhookEvent;
    try {
      event = await verifyWebhook({ payload: await request.text(), headers: request.headers, secret });
    } catch {
      throw new Error('invalid signature');
    }
    const seen: string[] = [];
    switch (event.type) {
      case 'email.delivered':
        seen.push(`delivered to ${event.data.recipient} ${event.data.smtp.message}`);
        break;
      case 'email.received':
        seen.push(`mail for route ${event.data.route_id} at /emails/received/${event.data.email_id}`);
        break;
      case 'email.bounced':
        seen.push(`bounced ${event.data.bounce.type}`);
        break;
    }
    expect(seen).toEqual(['bounced hard']);
  });

  test('when the gateway delivers a webhook.test before and after a rotation, then it verifies with the current secret, and after rotation with either', async () => {
    const endpoint = await mailroom.webhooks.create({ url: `${receiver.url}?verify`, events: ['email.delivered'] });
    receiver.answer = () => ({ status: 200, body: 'ok' });
    const before = await mailroom.webhooks.test(endpoint.id);
    const first = receiver.requests.filter((r) => r.headers['webhook-id'] === before.eventId).at(-1)!;
    expect((await verifyWebhook({ payload: first.body, headers: first.headers, secret: endpoint.secret })).type).toBe('webhook.test');
    await expect(verifyWebhook({ payload: first.body, headers: first.headers, secret: endpoint.secret, now: new Date(Date.now() + 600_000) })).rejects.toThrow(WebhookVerificationError);

    const { secret: next } = await mailroom.webhooks.rotateSecret(endpoint.id);
    const after = await mailroom.webhooks.test(endpoint.id);
    const second = receiver.requests.filter((r) => r.headers['webhook-id'] === after.eventId).at(-1)!;
    expect(String(second.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect((await verifyWebhook({ payload: second.body, headers: second.headers, secret: next })).type).toBe('webhook.test');
    expect((await verifyWebhook({ payload: second.body, headers: second.headers, secret: endpoint.secret })).type).toBe('webhook.test');
    await mailroom.webhooks.remove(endpoint.id);
  });
});
