import { createTransport } from 'nodemailer';
import { startTestMx, type TestMx, until } from '../../../services/inbound-smtp/test/smtp-support';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { DnsServer } from '../../../test/support/dns-server';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway';
import { allRoutes } from '../../../services/gateway/src/routes';
import { Receiver } from '../../../services/webhook-dispatcher/test/support';
import { appendEvents, inTransaction } from '@mailroom/db';
import { Mailroom, MailroomError, VERSION, verifyWebhook } from '../src/index';
import { rejectionOf } from './support/catch-error';
import { recordingFetch } from './support/recording-fetch';

/**
 * Every method of the client against a real gateway (and a real MX for received mail), in both
 * authentication modes, including the errors of the contract. The fetch records each request,
 * so the headers are checked as sent and, at the end, every operation of the document is
 * shown to have been called.
 */

const PASSWORD = 'correct horse battery';
const { fetch, calls } = recordingFetch();
let database: TestDatabase;
let t: TestGateway;
let mx: TestMx;
let dns: DnsServer;
let receiver: Receiver;
let baseUrl: string;
let owner: { email: string; sessionToken: string; projectId: string };
let clients: Record<'apiToken' | 'session', Mailroom>;

const sandbox = (local: string) => `${local}@sandbox.mailroom.test`;
let counter = 0;
const uniqueEmail = () => `user${++counter}-${Date.now()}@example.com`;

async function expectApiError(promise: PromiseLike<unknown>, name: string, statusCode: number): Promise<MailroomError> {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(MailroomError);
  expect({ name: error.name, statusCode: error.statusCode }).toEqual({ name, statusCode });
  // The X-Request-Id of the very answer that failed.
  expect(error.requestId).toMatch(/\S/);
  expect(error.requestId).toBe(calls.at(-1)?.requestId);
  return error;
}

beforeAll(async () => {
  database = await createTestDatabase('client');
  dns = await new DnsServer().start();
  // Private networks allowed: webhook endpoints here point at loopback.
  t = await startTestGateway({ database, env: { ALLOW_SIGNUP: 'true', ALLOW_PRIVATE_NETWORKS: 'true', DNS_SERVERS: dns.address } });
  receiver = await new Receiver().start();
  mx = await startTestMx({ database, env: { DNS_SERVERS: dns.address, RECONCILE_INTERVAL_SECONDS: '1' } });
  baseUrl = t.gateway.url;
  const signup = await Mailroom.signup({ baseUrl, fetch, email: uniqueEmail(), password: PASSWORD, projectName: 'Acme' });
  owner = { email: signup.user.email, sessionToken: signup.sessionToken, projectId: signup.project.id };
  const session = new Mailroom({ baseUrl, fetch, sessionToken: owner.sessionToken, projectId: owner.projectId });
  const key = await session.apiKeys.create({ name: 'app' });
  clients = { session, apiToken: new Mailroom({ baseUrl, fetch, apiToken: key.token }) };
}, 60_000);

afterAll(async () => {
  await receiver?.stop();
  await mx?.close();
  await t?.close();
  await dns?.stop();
  await database?.drop();
});

describe('constructing a client', () => {
  test.each([
    ['both credentials', { apiToken: 'mr_x', sessionToken: 's', projectId: 'proj_1' }, /either apiToken, or sessionToken with projectId, not both/],
    ['neither', {}, /pass apiToken .* or sessionToken with projectId/],
    ['a session without a project', { sessionToken: 's' }, /sessionToken needs a projectId/],
    ['a projectId without its prefix', { sessionToken: 's', projectId: '01JD0000' }, /beginning with "proj_"/],
    ['a project without a session', { projectId: 'proj_1' }, /projectId was given without sessionToken/],
    ['a baseUrl that is not http(s)', { apiToken: 'mr_x', baseUrl: 'localhost:3000' }, /baseUrl must be an http\(s\) URL/],
    ['negative retries', { apiToken: 'mr_x', maxRetries: -1 }, /maxRetries must be a whole number/],
    ['endless retries', { apiToken: 'mr_x', maxRetries: Number.POSITIVE_INFINITY }, /maxRetries must be a whole number/],
    // setTimeout fires at once past 2^31 - 1 ms: "no timeout" would have been "always time out".
    ['an endless timeout', { apiToken: 'mr_x', timeoutMs: Number.POSITIVE_INFINITY }, /timeoutMs must be a number of milliseconds from 1 to 2147483647/],
    ['a timeout past the longest timer', { apiToken: 'mr_x', timeoutMs: 2 ** 31 }, /timeoutMs must be/],
    ['a zero timeout', { apiToken: 'mr_x', timeoutMs: 0 }, /timeoutMs must be/],
    ['a token with a non-ASCII character', { apiToken: 'mr_tök€n' }, /apiToken holds characters no apiToken has/],
    ['a token with a line break', { apiToken: 'mr_x\r\nX-Evil: 1' }, /apiToken holds characters/],
    ['a session token with a space', { sessionToken: 'ey J', projectId: 'proj_1' }, /sessionToken holds characters/],
  ])('when given %s, then it throws a TypeError saying what is wrong', (_, options, message) => {
    expect(() => new Mailroom(options as any)).toThrow(TypeError);
    expect(() => new Mailroom(options as any)).toThrow(message);
  });

  test('when a call is given an id of "." or "..", a bad per-call timeout or retry count, or a key with a line break, then it throws a TypeError and sends nothing', async () => {
    const calls: string[] = [];
    const client = new Mailroom({ apiToken: 'mr_x', baseUrl: 'http://127.0.0.1:9', fetch: async (input) => {
        calls.push(String(input));
        return new Response('{}');
      },
    });
    await expect(client.routes.get('.')).rejects.toThrow(/cannot be "\."/);
    await expect(client.members.update('proj_1', '..', { role: 'member' })).rejects.toThrow(/cannot be "\.\."/);
    await expect(client.emails.cancel('..')).rejects.toThrow(TypeError);
    await expect(client.routes.list({}, { timeoutMs: -5 })).rejects.toThrow(/timeoutMs must be/);
    await expect(client.routes.list({}, { maxRetries: Number.POSITIVE_INFINITY })).rejects.toThrow(/maxRetries must be/);
    await expect(client.emails.send({ from: 'a@b.example', to: 'c@d.example', subject: 's', text: 't' }, { idempotencyKey: 'k\r\nx' })).rejects.toThrow(/idempotencyKey must be/);
    expect(calls).toEqual([]);
    // A key of any other text goes as its UTF-8 bytes, as the gateway reads it.
    const sent: (string | null)[] = [];
    const keyed = new Mailroom({ apiToken: 'mr_x', baseUrl: 'http://127.0.0.1:9', fetch: async (_input, init) => {
        sent.push(new Headers(init?.headers).get('idempotency-key'));
        return new Response('{"id":"em_1"}');
      },
    });
    await keyed.emails.send({ from: 'a@b.example', to: 'c@d.example', subject: 's', text: 't' }, { idempotencyKey: 'commande-é' });
    expect(sent.map((k) => k && Buffer.from(k, 'latin1').toString('utf8'))).toEqual(['commande-é']);
  });

  test('when it calls the API, then it sends the headers of its authentication mode and a User-Agent naming the client', async () => {
    await clients.apiToken.projects.list();
    const tokenCall = calls.at(-1)!;
    expect(tokenCall.headers.get('authorization')).toMatch(/^Bearer mr_/);
    expect(tokenCall.headers.get('x-service-session')).toBeNull();
    expect(tokenCall.headers.get('user-agent')).toBe(`mailroom-client-js/${VERSION}`);

    await clients.session.projects.list();
    const sessionCall = calls.at(-1)!;
    expect(sessionCall.headers.get('authorization')).toBeNull();
    expect(sessionCall.headers.get('x-service-session')).toBe(owner.sessionToken);
    expect(sessionCall.headers.get('x-project-id')).toBe(owner.projectId);
  });
});

describe.each(['apiToken', 'session'] as const)('with %s authentication', (mode) => {
  const client = () => clients[mode];
  // Addresses are stored lower-cased.
  const tag = mode.toLowerCase();

  test('when an attachment is given as bytes (a Uint8Array or a Buffer), then it is sent as base64 and stored byte for byte, in a send and a batch', async () => {
    const bytes = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256);
    const attachments = [
      { filename: 'bytes.bin', content: bytes },
      { filename: 'buffer.bin', content: Buffer.from('Grüße\u0000') },
      { filename: 'text.txt', content: Buffer.from('already base64').toString('base64') },
    ];
    const sent = await client().emails.send({ from: 'hello@acme.example', to: sandbox('delivered'), subject: 'Bytes', text: 'See attached', attachments });
    const [batched] = (await client().emails.batch([{ from: 'hello@acme.example', to: sandbox('delivered'), subject: 'Bytes', text: 'x', attachments }])).data;
    for (const id of [sent.id, batched!.id]) {
      const stored = await t.gateway.ctx.pool.query({ text: 'SELECT filename, content FROM email_attachments WHERE email_id = $1 ORDER BY position', values: [id] });
      expect(stored.rows.map((r: { filename: string; content: Buffer }) => [r.filename, r.content.toString('hex')])).toEqual([
        ['bytes.bin', Buffer.from(bytes).toString('hex')],
        ['buffer.bin', Buffer.from('Grüße\u0000').toString('hex')],
        ['text.txt', Buffer.from('already base64').toString('hex')],
      ]);
    }
  });

  test('when an email is sent, then it can be read, listed, filtered and iterated across pages', async () => {
    const to = `${tag}-${Date.now()}@example.com`;
    const sent = await client().emails.send({ from: 'Acme <hello@acme.example>', to: [to, sandbox('delivered')], subject: 'Hi', text: 'Hello', tags: [{ name: 'kind', value: 'welcome' }] });
    expect(sent.id).toMatch(/^em_/);
    expect(calls.at(-1)!.headers.get('idempotency-key')).toMatch(/^[0-9a-f]{32}$/);

    const email = await client().emails.get(sent.id);
    expect(email).toMatchObject({ object: 'email', id: sent.id, to: [to, sandbox('delivered')], subject: 'Hi', tags: [{ name: 'kind', value: 'welcome' }] });
    expect(email.recipients.map((r) => r.email)).toEqual([to, sandbox('delivered')]);

    const batch = await client().emails.batch([
      { from: 'hello@acme.example', to, subject: 'One', text: '1' },
      { from: 'hello@acme.example', to, subject: 'Two', text: '2' },
    ]);
    expect(batch.data).toHaveLength(2);

    const page = await client().emails.list({ to, limit: 2 });
    expect(page).toMatchObject({ object: 'list', hasMore: true });
    expect(page.data.map((e) => e.id)).toEqual([batch.data[1]!.id, batch.data[0]!.id]);

    const requestsBefore = calls.length;
    const iterated: string[] = [];
    for await (const summary of client().emails.list({ to, limit: 1 })) iterated.push(summary.id);
    expect(iterated).toEqual([batch.data[1]!.id, batch.data[0]!.id, sent.id]);
    // One request per page of one, and one more that finds the last page's end.
    expect(calls.length - requestsBefore).toBe(3);
    expect(calls.at(-1)!.url.searchParams.get('after')).toBe(batch.data[0]!.id);
  });

  test('when a scheduled email is canceled, then it answers canceled, and a second cancel is a conflict', async () => {
    const scheduledAt = new Date(Date.now() + 3_600_000).toISOString();
    const { id } = await client().emails.send({ from: 'hello@acme.example', to: sandbox('delivered'), subject: 'Later', text: 'Later', scheduledAt });
    const canceled = await client().emails.cancel(id);
    expect(canceled).toMatchObject({ id, status: 'canceled' });
    await expectApiError(client().emails.cancel(id), 'conflict', 409);
  });

  test('when a send is invalid, then the error names the field: validation_error or missing_required_field', async () => {
    const invalid = await expectApiError(client().emails.send({ from: 'not an address', to: 'a@example.com', subject: 'x', text: 'x' }), 'validation_error', 422);
    expect(invalid.message).toMatch(/from/);
    const missing = await expectApiError(client().emails.send({ from: 'hello@acme.example', subject: 'x', text: 'x' } as any), 'missing_required_field', 422);
    expect(missing.message).toMatch(/to/);
  });

  test('when an email does not exist, then get answers not_found with the request id', async () => {
    await expectApiError(client().emails.get('em_01JD0000000000000000000000'), 'not_found', 404);
  });

  test('when API keys are created, listed and revoked, then a revoked key is refused with invalid_api_key', async () => {
    const created = await client().apiKeys.create({ name: `${mode} key`, permission: 'sending_access' });
    expect(created.token).toMatch(/^mr_/);
    const listed = await client().apiKeys.list().toArray();
    expect(listed.map((k) => k.id)).toContain(created.id);
    expect(JSON.stringify(listed)).not.toContain(created.token);

    const sending = new Mailroom({ baseUrl, fetch, apiToken: created.token });
    expect((await sending.emails.send({ from: 'hello@acme.example', to: sandbox('delivered'), subject: 's', text: 's' })).id).toMatch(/^em_/);
    await expectApiError(sending.emails.list(), 'restricted_api_key', 403);

    expect(await client().apiKeys.revoke(created.id)).toEqual({ object: 'api_key', id: created.id, deleted: true });
    await expectApiError(sending.emails.send({ from: 'hello@acme.example', to: sandbox('delivered'), subject: 's', text: 's' }), 'invalid_api_key', 403);
  });

  test('when a route is created, read, listed, updated and removed, then each answer is the route, and then it is gone', async () => {
    const route = await client().routes.create({ match: `crud-${tag}@acme.test`, name: 'CRUD' });
    expect(route).toMatchObject({ object: 'route', match: `crud-${tag}@acme.test`, name: 'CRUD' });
    expect(await client().routes.get(route.id)).toEqual(route);
    expect((await client().routes.list()).data.map((r) => r.id)).toContain(route.id);
    expect(await client().routes.update(route.id, { name: 'Renamed' })).toMatchObject({ id: route.id, name: 'Renamed' });
    expect(await client().routes.remove(route.id)).toEqual({ object: 'route', id: route.id, deleted: true });
    await expectApiError(client().routes.get(route.id), 'not_found', 404);
  });

  test('when a sending domain is added, read, listed, verified, rotated and removed, then each answer is the domain with its records, and then it is gone', async () => {
    const name = `client-${tag}.acme.test`;
    const domain = await client().domains.create({ name });
    expect(domain).toMatchObject({ object: 'domain', name, status: 'pending' });
    expect(domain.records.map((r) => r.type)).toEqual(expect.arrayContaining(['TXT', 'MX']));
    expect(await client().domains.get(domain.id)).toMatchObject({ id: domain.id, name });
    expect((await client().domains.list()).data.map((d) => d.id)).toContain(domain.id);
    // The test DNS server publishes nothing for it: still pending.
    expect(await client().domains.verify(domain.id)).toMatchObject({ id: domain.id, status: 'pending' });
    const rotated = await client().domains.rotateDkim(domain.id);
    expect(rotated.id).toBe(domain.id);
    expect(rotated.records.filter((r) => r.name.includes('._domainkey.')).length).toBeGreaterThan(1);
    expect(await client().domains.remove(domain.id)).toEqual({ object: 'domain', id: domain.id, deleted: true });
    await expectApiError(client().domains.get(domain.id), 'not_found', 404);
  });

  test('when mail arrives at a route, then the received email is listed, read, and its raw message and attachment come back as the exact bytes', async () => {
    const route = await client().routes.create({ match: `inbox-${tag}@acme.test` });
    const attachment = Buffer.from([0, 1, 2, 250, 251, 252, 13, 10, 46]);
    const info = await createTransport({ host: '127.0.0.1', port: mx.mx.port, secure: false, ignoreTLS: true }).sendMail({
      from: 'zoe@example.test',
      to: `inbox-${tag}@acme.test`,
      subject: `Order ${mode}`,
      text: 'Ship it.',
      attachments: [{ filename: 'data.bin', content: attachment, contentType: 'application/octet-stream' }],
    });
    const id = /inb_[0-9A-Z]{26}/.exec(info.response)?.[0] as string;

    let received: Awaited<ReturnType<Mailroom['receivedEmails']['get']>> | undefined;
    await until(async () => {
      received = await client().receivedEmails.get(id);
      return received.authentication !== null;
    }, 20_000, 'the received email to be processed');
    expect(received).toMatchObject({ object: 'received_email', id, routeId: route.id, subject: `Order ${mode}`, from: { address: 'zoe@example.test' } });

    const listed = await client().receivedEmails.list({ routeId: route.id });
    expect(listed.data.map((e) => e.id)).toEqual([id]);

    const raw = await client().receivedEmails.raw(id);
    expect(raw).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(raw).toString('latin1')).toContain(`Subject: Order ${mode}`);
    const stored = await mx.pool.query({ text: 'SELECT raw FROM received_emails WHERE id = $1', values: [id] });
    expect(Buffer.from(raw).equals(stored.rows[0].raw)).toBe(true);

    const [meta] = received!.attachments;
    expect(meta).toMatchObject({ filename: 'data.bin', size: attachment.length });
    expect(Buffer.from(await client().receivedEmails.attachment(id, meta!.id)).equals(attachment)).toBe(true);
  });

  test('when an address is suppressed, then it is listed, read and removed', async () => {
    const address = `gone-${tag}@example.test`;
    await t.gateway.ctx.db.suppression.create({ data: { projectId: owner.projectId, address, reason: 'bounce', detail: '550 5.1.1 no such user' } });
    expect((await client().suppressions.list()).data.map((s) => s.id)).toContain(address);
    expect(await client().suppressions.get(address.toUpperCase())).toMatchObject({ object: 'suppression', id: address, reason: 'bounce' });
    expect(await client().suppressions.remove(address)).toEqual({ object: 'suppression', id: address, deleted: true });
    await expectApiError(client().suppressions.get(address), 'not_found', 404);
  });

  test('when stats are asked for, then the counts come per bucket with totals and rates, and a bad interval is a validation_error', async () => {
    // Each mode its own day, so the two runs of this test count only their own events.
    const day = mode === 'apiToken' ? '2026-09-10' : '2026-09-11';
    await inTransaction(t.gateway.ctx.pool, (db) =>
      appendEvents(
        db,
        [1, 2, 3].map(() => ({ projectId: owner.projectId, subject: { kind: 'received_email', receivedEmailId: 'inb_stats' }, type: 'email.received', data: {}, createdAt: new Date(`${day}T10:30:00Z`) })),
      ),
    );
    const stats = await client().stats.get({ from: `${day}T09:00:00Z`, to: `${day}T11:00:00Z`, interval: 'hour' });
    expect(stats).toMatchObject({ object: 'stats', interval: 'hour', from: `${day}T09:00:00.000Z`, to: `${day}T11:00:00.000Z`, bounceRate: 0, complaintRate: 0 });
    expect(stats.data.map((b) => [b.start, b.received, b.sent])).toEqual([
      [`${day}T09:00:00.000Z`, 0, 0],
      [`${day}T10:00:00.000Z`, 3, 0],
    ]);
    expect(stats.totals.received).toBe(3);
    expect((await client().stats.get()).interval).toBe('day');
    await expectApiError(client().stats.get({ interval: 'week' as 'day' }), 'validation_error', 422);
  });

  test('when the project is read, listed and updated, then its tracking defaults change', async () => {
    expect((await client().projects.list()).data.map((p) => p.id)).toContain(owner.projectId);
    expect(await client().projects.get(owner.projectId)).toMatchObject({ object: 'project', id: owner.projectId });
    const trackOpens = mode === 'session';
    expect(await client().projects.update(owner.projectId, { trackOpens })).toMatchObject({ id: owner.projectId, trackOpens });
    await expectApiError(client().projects.get('proj_01JD0000000000000000000000'), 'not_found', 404);
  });

  test('when a webhook endpoint is created, read, listed, updated, rotated and removed, then each answer is the endpoint, its secret only at creation and rotation', async () => {
    const created = await client().webhooks.create({ url: `http://127.0.0.1:9/${tag}`, events: ['email.delivered', 'email.bounced'], description: 'CRM' });
    expect(created).toMatchObject({ object: 'webhook', url: `http://127.0.0.1:9/${tag}`, events: ['email.delivered', 'email.bounced'], enabled: true });
    expect(created.secret).toMatch(/^whsec_/);
    const read = await client().webhooks.get(created.id);
    expect(read).not.toHaveProperty('secret');
    expect((await client().webhooks.list()).data.map((w) => w.id)).toContain(created.id);
    expect(await client().webhooks.update(created.id, { enabled: false })).toMatchObject({ id: created.id, enabled: false, disabledReason: 'manual' });
    const rotated = await client().webhooks.rotateSecret(created.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect(await client().webhooks.remove(created.id)).toEqual({ object: 'webhook', id: created.id, deleted: true });
    await expectApiError(client().webhooks.get(created.id), 'not_found', 404);
    await expectApiError(client().webhooks.create({ url: 'ftp://example.com/hook', events: ['email.sent'] }), 'validation_error', 422);
  });

  test('when an endpoint is tested, its failure replayed and recovered, then the attempts say so and the test event verifies', async () => {
    const endpoint = await client().webhooks.create({ url: `${receiver.url}?${tag}`, events: ['email.delivered'] });
    receiver.answer = () => ({ status: 500, body: 'down' });
    const failed = await client().webhooks.test(endpoint.id);
    expect(failed).toMatchObject({ object: 'webhook_attempt', eventType: 'webhook.test', success: false, responseStatus: 500 });

    receiver.answer = () => ({ status: 200, body: 'ok' });
    const replayed = await client().webhooks.replay(endpoint.id);
    expect(replayed).toMatchObject({ eventId: failed.eventId, trigger: 'manual', success: true, responseStatus: 200 });
    await expectApiError(client().webhooks.replay(endpoint.id), 'not_found', 404);

    const attempts = await client().webhooks.attempts(endpoint.id, { eventId: failed.eventId });
    expect(attempts.data.map((a) => a.id)).toEqual([replayed.id, failed.id]);
    expect((await client().webhooks.attempts(endpoint.id, { success: 'false' })).data.map((a) => a.id)).toEqual([failed.id]);

    const recovery = await client().webhooks.recover(endpoint.id, { since: new Date(Date.now() - 3_600_000).toISOString() });
    expect(recovery).toMatchObject({ object: 'webhook_recovery', webhookId: endpoint.id });

    const delivered = receiver.requests.filter((r) => r.headers['webhook-id'] === failed.eventId).at(-1)!;
    const event = await verifyWebhook({ payload: delivered.body, headers: delivered.headers, secret: endpoint.secret });
    expect(event.type === 'webhook.test' && event.data.webhook_id).toBe(endpoint.id);
    await client().webhooks.remove(endpoint.id);
  });

  test('when the clicks of an email are asked for, then they come as a list of links, and an unknown email is not_found', async () => {
    const { id } = await client().emails.send({ from: 'hello@acme.example', to: sandbox('delivered'), subject: 'Links', html: '<a href="https://acme.example/a">a</a>', trackClicks: true });
    const clicks = await client().emails.clicks(id);
    expect(clicks).toMatchObject({ object: 'list', hasMore: false });
    expect(clicks.data.every((link) => link.object === 'link_clicks')).toBe(true);
    await expectApiError(client().emails.clicks('em_01JD0000000000000000000000'), 'not_found', 404);
  });

  test('when members are listed, then the owner is among them', async () => {
    const members = await client().members.list(owner.projectId);
    expect(members.data).toContainEqual(expect.objectContaining({ object: 'member', email: owner.email, role: 'owner' }));
  });
});

describe('console sessions', () => {
  test('when an API key creates a project, manages members or logs out, then it is refused', async () => {
    const error = await rejectionOf(clients.apiToken.projects.create({ name: 'Nope' }));
    expect(error).toBeInstanceOf(MailroomError);
    expect(error.statusCode).toBe(403);
    await expectApiError(clients.apiToken.auth.logout(), 'forbidden', 403);
  });

  test('when an owner creates a project and adds, then removes, a member, then the member cannot manage members (forbidden)', async () => {
    const other = await Mailroom.signup({ baseUrl, fetch, email: uniqueEmail(), password: PASSWORD });
    const project = await clients.session.projects.create({ name: 'Second', trackClicks: true });
    expect(project).toMatchObject({ object: 'project', name: 'Second', trackClicks: true });

    const member = await clients.session.members.add(project.id, { email: other.user.email, role: 'member' });
    expect(member).toMatchObject({ object: 'member', id: other.user.id, role: 'member' });

    const asMember = new Mailroom({ baseUrl, fetch, sessionToken: other.sessionToken, projectId: project.id });
    expect((await asMember.projects.get(project.id)).id).toBe(project.id);
    await expectApiError(asMember.members.add(project.id, { email: owner.email, role: 'member' }), 'forbidden', 403);

    expect(await clients.session.members.update(project.id, other.user.id, { role: 'owner' })).toMatchObject({ id: other.user.id, role: 'owner' });
    expect(await clients.session.members.update(project.id, other.user.id, { role: 'member' })).toMatchObject({ role: 'member' });
    expect(await clients.session.members.remove(project.id, other.user.id)).toMatchObject({ id: other.user.id, deleted: true });
    // No longer a member: the project is someone else's, which is not found.
    await expectApiError(asMember.projects.get(project.id), 'not_found', 404);
  });

  test('when a user logs in, then the session works until logout, and is refused with invalid_session after', async () => {
    await expectApiError(Mailroom.login({ baseUrl, fetch, email: owner.email, password: 'wrong password!' }), 'invalid_credentials', 401);
    const login = await Mailroom.login({ baseUrl, fetch, email: owner.email, password: PASSWORD });
    expect(login.projects.map((p) => p.id)).toContain(owner.projectId);
    const session = new Mailroom({ baseUrl, fetch, sessionToken: login.sessionToken, projectId: owner.projectId });
    expect((await session.emails.list()).object).toBe('list');
    expect(await session.auth.logout()).toMatchObject({ object: 'session', revoked: true });
    await expectApiError(session.emails.list(), 'invalid_session', 401);
  });
});

// Operational endpoints that are not the application API (probes, metrics, the document and its page).
const NOT_IN_CLIENT = new Set(['health', 'ready', 'metrics', 'openApiDocument', 'apiReference', 'apiReferenceAsset']);

test('then every operation of the OpenAPI document, but the operational ones, was called through the client', () => {
  const { routes } = allRoutes('http://x');
  const missing = routes
    .filter((route) => !NOT_IN_CLIENT.has(route.operationId))
    .filter((route) => {
      const pattern = new RegExp(`^${route.path.replace(/\{\w+\}/g, '[^/]+')}$`);
      return !calls.some((call) => call.method === route.method.toUpperCase() && pattern.test(call.url.pathname) && call.status !== null && call.status < 300);
    })
    .map((route) => route.operationId);
  expect(missing).toEqual([]);
});
