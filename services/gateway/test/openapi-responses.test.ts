import { loadConfig, newId } from '@mailroom/core';
import { appendEvents, inTransaction } from '@mailroom/db';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { Client } from 'pg';
import { startSender, type RunningSender } from '../../sender/src/start-sender';
import { Receiver } from '../../webhook-dispatcher/test/support';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { DnsServer } from '../../../test/support/dns-server';
import { createKey, signUp, startTestGateway, testEnv, type TestGateway } from '../../../test/support/gateway';
import type { ApiClient, ApiResponse } from '../../../test/support/http';
import { publish } from '../../../test/support/published-records';
import { waitForEmail } from '../../../test/support/sending';
import { insertReceived, type ReceivedFixture } from './received-fixtures';

// What a client generated from GET /openapi.json relies on: every answer's status is one the
// operation lists, its content type is the one declared for that status, its JSON body is valid
// against the declared schema (no undocumented field, no null or missing field the schema does
// not allow), an error's name is one the status lists, and every header it promises is there.
// Each operation of the document is called at least once, so a new one without a check fails.

type Method = 'get' | 'post' | 'patch' | 'delete';
interface CallOptions {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

const METRICS_TOKEN = 'metrics-token-for-the-openapi-responses-test';
const SANDBOX = (box: string) => `${box}@sandbox.mailroom.test`;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** JSON pointer of a key, written into a URI fragment. */
const pointer = (key: string) => encodeURIComponent(key.replace(/~/g, '~0').replace(/\//g, '~1'));

/**
 * The document with every object schema that lists its properties and says nothing about others
 * closed (`additionalProperties: false`): a field the document does not name is one no generated
 * type has. Examples are data, not schemas, and are left as they are.
 */
function closeObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closeObjects);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = key === 'example' || key === 'examples' ? value : closeObjects(value);
  if ('properties' in out && !('additionalProperties' in out) && !('unevaluatedProperties' in out)) out.additionalProperties = false;
  return out;
}

describe('every operation of the OpenAPI document answers as the document says', () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  let t: TestGateway;
  let sender: RunningSender;
  let dns: DnsServer;
  const receiver = new Receiver();
  let db: Client;
  let doc: any;
  let ajv: Ajv2020;
  const validators = new Map<string, ValidateFunction>();
  /** `METHOD /path` → the statuses it answered. */
  const exercised = new Map<string, Set<number>>();
  const problems: string[] = [];

  // Actors: owner A (session and full-access token), a member C of A's project, and owner B of
  // another project, whose resources A must not see.
  let anonymous: ApiClient;
  let a: { email: string; userId: string; projectId: string; session: string; as: ApiClient; token: ApiClient; tokenValue: string; sending: ApiClient; keyId: string };
  let b: { projectId: string; as: ApiClient; token: ApiClient; keyId: string };
  let c: { email: string; userId: string };

  function conform(method: Method, template: string, res: ApiResponse): void {
    const label = `${method.toUpperCase()} ${template} → ${res.status}`;
    const operation = doc.paths[template]?.[method];
    if (!operation) {
      problems.push(`${method.toUpperCase()} ${template}: no such operation in the document`);
      return;
    }
    const key = `${method.toUpperCase()} ${template}`;
    exercised.set(key, (exercised.get(key) ?? new Set()).add(res.status));
    if (!res.headers.get('x-request-id')) problems.push(`${label}: no X-Request-Id (DESIGN §4)`);
    const documented = operation.responses[String(res.status)];
    if (!documented) {
      problems.push(`${label}: status not documented (documented: ${Object.keys(operation.responses).join(', ')}); body ${res.text.slice(0, 300)}`);
      return;
    }
    for (const [name, header] of Object.entries((documented.headers ?? {}) as Record<string, { required?: boolean }>)) {
      if (header.required && res.headers.get(name) === null) problems.push(`${label}: header ${name} is documented as required and absent`);
    }
    const mediaTypes = Object.keys(documented.content ?? {});
    const actual = (res.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const declared = mediaTypes.find((m) => m === actual || m === '*/*' || (m.endsWith('/*') && actual.startsWith(m.slice(0, -1))));
    if (!declared) {
      problems.push(`${label}: content type "${actual}" is not one documented (${mediaTypes.join(', ')})`);
      return;
    }
    if (declared !== 'application/json') return;
    const ref = `openapi#/paths/${pointer(template)}/${method}/responses/${res.status}/content/${pointer(declared)}/schema`;
    let validate = validators.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: ref });
      validators.set(ref, validate);
    }
    if (!validate(res.body)) {
      problems.push(`${label}: body does not match the schema: ${ajv.errorsText(validate.errors, { separator: '; ' })}; body ${res.text.slice(0, 400)}`);
    }
    if (res.status >= 400) {
      const names = (documented.description.match(/`\w+`/g) ?? []).map((n: string) => n.slice(1, -1));
      if (!names.includes(res.body?.name)) problems.push(`${label}: error name ${res.body?.name} is not one the document lists for it (${names.join(', ')})`);
      if (res.body?.statusCode !== res.status) problems.push(`${label}: statusCode ${res.body?.statusCode} differs from the HTTP status`);
    }
  }

  /** Calls one operation by its documented path and checks the answer against the document. */
  async function call(as: ApiClient, method: Method, template: string, options: CallOptions = {}): Promise<ApiResponse> {
    let path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = options.params?.[name];
      if (value === undefined) throw new Error(`no value for {${name}} of ${template}`);
      return encodeURIComponent(value);
    });
    if (options.query) path += `?${new URLSearchParams(options.query)}`;
    const res = await as.request(method.toUpperCase(), path, { body: options.body, rawBody: options.rawBody, headers: options.headers });
    conform(method, template, res);
    return res;
  }

  /** Calls and requires one status, so that the following steps have what they need. */
  async function expectStatus(status: number, as: ApiClient, method: Method, template: string, options: CallOptions = {}): Promise<ApiResponse> {
    const res = await call(as, method, template, options);
    if (res.status !== status) problems.push(`${method.toUpperCase()} ${template}: expected ${status} for this call, got ${res.status}: ${res.text.slice(0, 300)}`);
    return res;
  }

  beforeAll(async () => {
    dns = await new DnsServer().start();
    await receiver.start();
    database = await createTestDatabase('openapi_responses');
    env = testEnv(database, {
      ALLOW_SIGNUP: 'true',
      ALLOW_PRIVATE_NETWORKS: 'true',
      DNS_SERVERS: dns.address,
      METRICS_TOKEN,
      SMTP_RETRY_SCHEDULE: '1,1',
      LEASE_SECONDS: '5',
      RECONCILE_INTERVAL_SECONDS: '1',
    });
    t = await startTestGateway({ database, env });
    sender = await startSender(loadConfig(env));
    db = new Client({ connectionString: database.url });
    await db.connect();
    anonymous = t.api;
    doc = (await t.api.get('/openapi.json')).body;
    ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addFormat('date-time', { type: 'string', validate: (value: string) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)) });
    ajv.addFormat('binary', true);
    ajv.addSchema(closeObjects(doc) as object, 'openapi');

    const owner = await signUp(t.api);
    const full = await createKey(owner.as);
    const sending = await createKey(owner.as, 'sending_access');
    a = {
      email: owner.email,
      userId: owner.userId,
      projectId: owner.projectId,
      session: owner.session,
      as: owner.as,
      token: t.api.as({ token: full.token }),
      tokenValue: full.token,
      sending: t.api.as({ token: sending.token }),
      keyId: full.id,
    };
    const other = await signUp(t.api);
    const otherKey = await createKey(other.as);
    b = { projectId: other.projectId, as: other.as, token: t.api.as({ token: otherKey.token }), keyId: otherKey.id };
    const member = await signUp(t.api);
    c = { email: member.email, userId: member.userId };
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await sender?.stop();
    await t?.close();
    await database?.drop();
    await receiver.stop();
    await dns?.stop();
  }, 60_000);

  afterEach(() => {
    const found = problems.splice(0);
    expect(found).toEqual([]);
  });

  test('when a body has an undocumented field, a null or a missing required field, or an error an undocumented name, then the check reports it', async () => {
    const project = await call(a.as, 'get', '/projects/{id}', { params: { id: a.projectId } });
    expect(problems.splice(0)).toEqual([]);
    const variants = [
      { ...project.body, plan: 'free' },
      { ...project.body, name: null },
      { ...project.body, createdAt: 'yesterday' },
      Object.fromEntries(Object.entries(project.body).filter(([key]) => key !== 'updatedAt')),
    ];
    for (const body of variants) conform('get', '/projects/{id}', { ...project, body });
    conform('get', '/projects/{id}', { ...project, status: 418 });
    conform('get', '/projects/{id}', { ...project, status: 404, body: { name: 'conflict', message: 'x', statusCode: 404 } });
    expect(problems.splice(0).map((p) => p.replace(/;.*$|: .*$/, ''))).toEqual([
      ...Array(4).fill('GET /projects/{id} → 200'),
      'GET /projects/{id} → 418',
      'GET /projects/{id} → 404',
    ]);
  });

  test('when signing up, logging in and out, then each answer is as documented', async () => {
    const email = `openapi-${newId('user').slice(-8).toLowerCase()}@example.com`;
    await expectStatus(201, anonymous, 'post', '/auth/signup', { body: { email, password: 'correct horse battery' } });
    await expectStatus(409, anonymous, 'post', '/auth/signup', { body: { email, password: 'correct horse battery' } });
    await expectStatus(422, anonymous, 'post', '/auth/signup', { body: { email: 'x@example.com' } });
    await expectStatus(422, anonymous, 'post', '/auth/signup', { body: { email: 'not an address', password: 'correct horse battery' } });
    await expectStatus(400, anonymous, 'post', '/auth/signup', { rawBody: '{"email":', headers: { 'content-type': 'application/json' } });

    const login = await expectStatus(200, anonymous, 'post', '/auth/login', { body: { email, password: 'correct horse battery' } });
    await expectStatus(401, anonymous, 'post', '/auth/login', { body: { email, password: 'wrong password' } });
    await expectStatus(422, anonymous, 'post', '/auth/login', { body: { email } });

    const session = anonymous.as({ session: login.body.sessionToken });
    await expectStatus(403, a.token, 'post', '/auth/logout');
    await expectStatus(401, anonymous, 'post', '/auth/logout');
    await expectStatus(200, session, 'post', '/auth/logout');
    await expectStatus(401, session, 'post', '/auth/logout');
  });

  test('when managing projects and members, then each answer is as documented', async () => {
    await expectStatus(201, a.as, 'post', '/projects', { body: { name: 'Second', trackOpens: true } });
    await expectStatus(422, anonymous.as({ session: a.session }), 'post', '/projects', { body: { name: 'Without X-Project-Id' } });
    await expectStatus(403, a.token, 'post', '/projects', { body: { name: 'By token' } });
    await expectStatus(422, a.as, 'post', '/projects', { body: { name: '' } });
    await expectStatus(401, anonymous, 'post', '/projects', { body: { name: 'Nobody' } });

    await expectStatus(200, anonymous.as({ session: a.session }), 'get', '/projects');
    await expectStatus(200, a.token, 'get', '/projects');
    await expectStatus(401, anonymous, 'get', '/projects');
    await expectStatus(403, anonymous.as({ token: `mr_${'A'.repeat(43)}` }), 'get', '/projects');
    await expectStatus(401, anonymous.as({ session: 'not.a.session' }), 'get', '/projects');

    const id = { id: a.projectId };
    await expectStatus(200, a.as, 'get', '/projects/{id}', { params: id });
    await expectStatus(200, a.token, 'get', '/projects/{id}', { params: id });
    await expectStatus(404, a.as, 'get', '/projects/{id}', { params: { id: b.projectId } });
    await expectStatus(404, a.token, 'get', '/projects/{id}', { params: { id: b.projectId } });
    await expectStatus(200, a.as, 'patch', '/projects/{id}', { params: id, body: { name: 'Acme renamed', trackClicks: true } });
    await expectStatus(422, a.as, 'patch', '/projects/{id}', { params: id, body: { name: 5 } });
    await expectStatus(404, a.token, 'patch', '/projects/{id}', { params: { id: b.projectId }, body: { name: 'Theirs' } });

    await expectStatus(201, a.as, 'post', '/projects/{id}/members', { params: id, body: { email: c.email, role: 'member' } });
    await expectStatus(409, a.as, 'post', '/projects/{id}/members', { params: id, body: { email: c.email } });
    await expectStatus(404, a.as, 'post', '/projects/{id}/members', { params: id, body: { email: 'nobody-signed-up@example.com' } });
    await expectStatus(422, a.as, 'post', '/projects/{id}/members', { params: id, body: { email: c.email, role: 'admin' } });
    await expectStatus(403, a.token, 'post', '/projects/{id}/members', { params: id, body: { email: c.email } });
    await expectStatus(404, a.as, 'post', '/projects/{id}/members', { params: { id: b.projectId }, body: { email: c.email } });

    await expectStatus(200, a.as, 'get', '/projects/{id}/members', { params: id });
    await expectStatus(200, a.token, 'get', '/projects/{id}/members', { params: id });
    await expectStatus(404, a.as, 'get', '/projects/{id}/members', { params: { id: b.projectId } });

    const member = { id: a.projectId, userId: c.userId };
    await expectStatus(200, a.as, 'patch', '/projects/{id}/members/{userId}', { params: member, body: { role: 'owner' } });
    await expectStatus(200, a.as, 'patch', '/projects/{id}/members/{userId}', { params: member, body: { role: 'member' } });
    await expectStatus(409, a.as, 'patch', '/projects/{id}/members/{userId}', { params: { id: a.projectId, userId: a.userId }, body: { role: 'member' } });
    await expectStatus(404, a.as, 'patch', '/projects/{id}/members/{userId}', { params: { id: a.projectId, userId: 'usr_nobody' }, body: { role: 'owner' } });
    await expectStatus(422, a.as, 'patch', '/projects/{id}/members/{userId}', { params: member, body: {} });
    await expectStatus(409, a.as, 'delete', '/projects/{id}/members/{userId}', { params: { id: a.projectId, userId: a.userId } });
    await expectStatus(200, a.as, 'delete', '/projects/{id}/members/{userId}', { params: member });
    await expectStatus(404, a.as, 'delete', '/projects/{id}/members/{userId}', { params: member });
  });

  test('when managing API keys, then each answer is as documented', async () => {
    const created = await expectStatus(201, a.token, 'post', '/api-keys', { body: { name: 'ci', permission: 'sending_access' } });
    await expectStatus(201, a.as, 'post', '/api-keys', { body: { name: 'console' } });
    await expectStatus(422, a.token, 'post', '/api-keys', { body: { name: 'x', permission: 'admin' } });
    await expectStatus(403, a.sending, 'post', '/api-keys', { body: { name: 'x' } });
    await expectStatus(422, a.as.as({ session: a.session }), 'post', '/api-keys', { body: { name: 'no project header' } });

    await expectStatus(200, a.token, 'get', '/api-keys', { query: { limit: '2' } });
    await expectStatus(422, a.token, 'get', '/api-keys', { query: { limit: '0' } });
    await expectStatus(403, a.sending, 'get', '/api-keys');
    await expectStatus(403, anonymous.as({ session: a.session, project: b.projectId }), 'get', '/api-keys');

    await expectStatus(404, a.token, 'delete', '/api-keys/{id}', { params: { id: b.keyId } });
    await expectStatus(200, a.token, 'delete', '/api-keys/{id}', { params: { id: created.body.id } });
    await expectStatus(404, a.token, 'delete', '/api-keys/{id}', { params: { id: created.body.id } });
  });

  test('when sending, reading and canceling emails, then each answer is as documented', async () => {
    const send = { from: 'Acme <hello@acme.example>', to: [SANDBOX('delivered'), SANDBOX('bounced')], cc: SANDBOX('complained'), subject: 'Hi', text: 'Hello', tags: [{ name: 'kind', value: 'probe' }] };
    const sent = await expectStatus(200, a.token, 'post', '/emails', { body: send, headers: { 'idempotency-key': 'openapi-1' } });
    await expectStatus(200, a.token, 'post', '/emails', { body: send, headers: { 'idempotency-key': 'openapi-1' } });
    await expectStatus(409, a.token, 'post', '/emails', { body: { ...send, subject: 'Other' }, headers: { 'idempotency-key': 'openapi-1' } });
    await expectStatus(400, a.token, 'post', '/emails', { body: send, headers: { 'idempotency-key': 'k'.repeat(300) } });
    await expectStatus(200, a.sending, 'post', '/emails', { body: { from: 'hello@acme.example', to: SANDBOX('suppressed'), subject: 'HTML only', html: '<p>Only HTML</p>' } });
    await expectStatus(422, a.token, 'post', '/emails', { body: { to: SANDBOX('delivered'), subject: 'Hi', text: 'x' } });
    await expectStatus(422, a.token, 'post', '/emails', { body: { ...send, to: 'not an address' } });
    await expectStatus(400, a.token, 'post', '/emails', { rawBody: '{"from": ', headers: { 'content-type': 'application/json' } });
    await expectStatus(401, anonymous, 'post', '/emails', { body: send });
    await expectStatus(403, anonymous.as({ token: 'mr_malformed' }), 'post', '/emails', { body: send });

    await expectStatus(200, a.token, 'post', '/emails/batch', { body: [send, { ...send, to: SANDBOX('delivered') }] });
    await expectStatus(422, a.token, 'post', '/emails/batch', { body: [send, { ...send, from: '' }] });
    await expectStatus(422, a.sending, 'post', '/emails/batch', { body: [] });

    const future = new Date(Date.now() + 86_400_000).toISOString();
    const scheduled = await expectStatus(200, a.token, 'post', '/emails', { body: { ...send, scheduledAt: future } });

    const email = await waitForEmail(a.token, sent.body.id, (e) => e.recipients?.every((r: { status: string }) => r.status !== 'queued' && r.status !== 'sent') && e.events.some((ev: { type: string }) => ev.type === 'email.complained'), 30_000);
    // Engagement the tracking service would record: a person's open and click, and a link scanner's click.
    const events = [
      { type: 'email.opened' as const, data: { open: { ip_address: '198.51.100.4', user_agent: 'Mail/1', is_bot: false } } },
      { type: 'email.clicked' as const, data: { click: { link: 'https://acme.example/pricing', ip_address: '198.51.100.4', user_agent: 'Mail/1', is_bot: false } } },
      { type: 'email.clicked' as const, data: { click: { link: 'https://acme.example/scanned', ip_address: '203.0.113.9', user_agent: 'Scanner', is_bot: true } } },
    ];
    await inTransaction(t.gateway.ctx.pool, (client) =>
      appendEvents(
        client,
        events.map((event) => ({
          projectId: a.projectId,
          subject: { kind: 'email', emailId: email.id, recipient: SANDBOX('delivered') },
          type: event.type,
          data: { email_id: email.id, from: send.from, to: send.to, subject: send.subject, tags: send.tags, recipient: SANDBOX('delivered'), ...event.data },
        })),
      ),
    );

    await expectStatus(200, a.token, 'get', '/emails/{id}', { params: { id: sent.body.id } });
    await expectStatus(200, a.as, 'get', '/emails/{id}', { params: { id: scheduled.body.id } });
    await expectStatus(404, b.token, 'get', '/emails/{id}', { params: { id: sent.body.id } });
    await expectStatus(404, a.token, 'get', '/emails/{id}', { params: { id: 'em_unknown' } });
    await expectStatus(403, a.sending, 'get', '/emails/{id}', { params: { id: sent.body.id } });

    await expectStatus(200, a.token, 'get', '/emails');
    await expectStatus(200, a.token, 'get', '/emails', { query: { limit: '1', status: 'scheduled', to: SANDBOX('delivered') } });
    await expectStatus(422, a.token, 'get', '/emails', { query: { limit: '101' } });
    await expectStatus(422, a.token, 'get', '/emails', { query: { to: 'not an address' } });
    await expectStatus(422, a.token, 'get', '/emails', { query: { status: 'lost' } });

    await expectStatus(200, a.token, 'get', '/emails/{id}/clicks', { params: { id: sent.body.id } });
    await expectStatus(200, a.token, 'get', '/emails/{id}/clicks', { params: { id: scheduled.body.id } });
    await expectStatus(404, b.token, 'get', '/emails/{id}/clicks', { params: { id: sent.body.id } });

    await expectStatus(200, a.token, 'post', '/emails/{id}/cancel', { params: { id: scheduled.body.id } });
    await expectStatus(409, a.token, 'post', '/emails/{id}/cancel', { params: { id: scheduled.body.id } });
    await expectStatus(409, a.token, 'post', '/emails/{id}/cancel', { params: { id: sent.body.id } });
    await expectStatus(404, b.token, 'post', '/emails/{id}/cancel', { params: { id: scheduled.body.id } });
  }, 60_000);

  test('when managing routes, then each answer is as documented', async () => {
    const route = await expectStatus(201, a.token, 'post', '/routes', { body: { match: 'support@inbox.example', name: 'Support' } });
    await expectStatus(201, a.token, 'post', '/routes', { body: { match: '*@inbox.example' } });
    await expectStatus(409, b.token, 'post', '/routes', { body: { match: 'support@inbox.example' } });
    await expectStatus(422, a.token, 'post', '/routes', { body: { match: 'no at sign' } });
    await expectStatus(422, a.token, 'post', '/routes', { body: {} });
    await expectStatus(413, a.token, 'post', '/routes', { body: { match: 'big@inbox.example', name: 'x'.repeat(1_100_000) } });

    await expectStatus(200, a.token, 'get', '/routes');
    await expectStatus(200, a.token, 'get', '/routes/{id}', { params: { id: route.body.id } });
    await expectStatus(404, b.token, 'get', '/routes/{id}', { params: { id: route.body.id } });
    await expectStatus(200, a.token, 'patch', '/routes/{id}', { params: { id: route.body.id }, body: { name: null } });
    await expectStatus(409, a.token, 'patch', '/routes/{id}', { params: { id: route.body.id }, body: { match: '*@inbox.example' } });
    await expectStatus(404, b.token, 'patch', '/routes/{id}', { params: { id: route.body.id }, body: { name: 'Theirs' } });
    await expectStatus(422, a.token, 'patch', '/routes/{id}', { params: { id: route.body.id }, body: { match: '' } });

    const scoped = await expectStatus(201, a.token, 'post', '/webhooks', { body: { url: receiver.url, events: ['email.received'], routeId: route.body.id } });
    await expectStatus(409, a.token, 'delete', '/routes/{id}', { params: { id: route.body.id } });
    await expectStatus(200, a.token, 'delete', '/webhooks/{id}', { params: { id: scoped.body.id } });
    await expectStatus(404, b.token, 'delete', '/routes/{id}', { params: { id: route.body.id } });
    await expectStatus(200, a.token, 'delete', '/routes/{id}', { params: { id: route.body.id } });
    await expectStatus(404, a.token, 'delete', '/routes/{id}', { params: { id: route.body.id } });
  });

  test('when reading received emails, then each answer is as documented', async () => {
    const route = (await a.token.post('/routes', { match: 'hello@received.example' })).body.id as string;
    const raw = Buffer.from('From: Alice <alice@example.com>\r\nTo: hello@received.example\r\nSubject: Hi\r\n\r\nhello\r\n');
    const parsed = await insertReceived(db, receivedFixture(a.projectId, [route], raw, true));
    const unparsed = await insertReceived(db, receivedFixture(a.projectId, [route], raw, false));
    const feedback = await insertReceived(db, receivedFixture(a.projectId, [], raw, true));

    await expectStatus(200, a.token, 'get', '/emails/received');
    await expectStatus(200, a.token, 'get', '/emails/received', { query: { routeId: route, limit: '1' } });
    await expectStatus(200, a.token, 'get', '/emails/received', { query: { route_id: route } });
    await expectStatus(422, a.token, 'get', '/emails/received', { query: { routeId: 'not-a-route' } });
    await expectStatus(422, a.token, 'get', '/emails/received', { query: { limit: 'many' } });

    for (const id of [parsed.id, unparsed.id, feedback.id]) await expectStatus(200, a.token, 'get', '/emails/received/{id}', { params: { id } });
    await expectStatus(404, b.token, 'get', '/emails/received/{id}', { params: { id: parsed.id } });
    await expectStatus(404, a.token, 'get', '/emails/received/{id}', { params: { id: 'inb_unknown' } });

    const download = await expectStatus(200, a.token, 'get', '/emails/received/{id}/raw', { params: { id: parsed.id } });
    expect(download.text).toBe(raw.toString());
    await expectStatus(404, b.token, 'get', '/emails/received/{id}/raw', { params: { id: parsed.id } });

    for (const attachmentId of parsed.attachmentIds) {
      await expectStatus(200, a.token, 'get', '/emails/received/{id}/attachments/{attachmentId}', { params: { id: parsed.id, attachmentId } });
    }
    await expectStatus(404, b.token, 'get', '/emails/received/{id}/attachments/{attachmentId}', { params: { id: parsed.id, attachmentId: parsed.attachmentIds[0] ?? '' } });
    await expectStatus(404, a.token, 'get', '/emails/received/{id}/attachments/{attachmentId}', { params: { id: parsed.id, attachmentId: 'att_unknown' } });
  });

  test('when managing webhooks and their deliveries, then each answer is as documented', async () => {
    receiver.answer = () => ({ status: 200, body: 'ok' });
    const created = await expectStatus(201, a.token, 'post', '/webhooks', { body: { url: receiver.url, events: ['email.delivered', 'email.bounced'], description: 'CRM' } });
    const id = { id: created.body.id as string };
    await expectStatus(422, a.token, 'post', '/webhooks', { body: { url: 'ftp://example.com/hook', events: ['email.delivered'] } });
    await expectStatus(422, a.token, 'post', '/webhooks', { body: { url: receiver.url, events: [] } });
    await expectStatus(422, a.token, 'post', '/webhooks', { body: { url: receiver.url } });
    const theirRoute = (await b.token.post('/routes', { match: 'theirs@webhooks.example' })).body.id as string;
    await expectStatus(422, a.token, 'post', '/webhooks', { body: { url: receiver.url, events: ['email.received'], routeId: theirRoute } });

    await expectStatus(200, a.token, 'get', '/webhooks');
    await expectStatus(200, a.token, 'get', '/webhooks/{id}', { params: id });
    await expectStatus(404, b.token, 'get', '/webhooks/{id}', { params: id });
    await expectStatus(200, a.token, 'patch', '/webhooks/{id}', { params: id, body: { enabled: false } });
    await expectStatus(200, a.token, 'patch', '/webhooks/{id}', { params: id, body: { enabled: true, description: null } });
    await expectStatus(422, a.token, 'patch', '/webhooks/{id}', { params: id, body: { events: ['email.nothing'] } });
    await expectStatus(404, b.token, 'patch', '/webhooks/{id}', { params: id, body: { enabled: false } });
    await expectStatus(200, a.token, 'post', '/webhooks/{id}/rotate-secret', { params: id });
    await expectStatus(404, b.token, 'post', '/webhooks/{id}/rotate-secret', { params: id });

    await expectStatus(404, a.token, 'post', '/webhooks/{id}/replay', { params: id });
    await expectStatus(200, a.token, 'post', '/webhooks/{id}/test', { params: id });
    receiver.answer = () => ({ status: 500, body: 'down for maintenance' });
    const failed = await expectStatus(200, a.token, 'post', '/webhooks/{id}/test', { params: id });
    await expectStatus(404, b.token, 'post', '/webhooks/{id}/test', { params: id });
    receiver.answer = () => ({ status: 200, body: 'ok' });
    await expectStatus(200, a.token, 'post', '/webhooks/{id}/replay', { params: id });
    await expectStatus(404, b.token, 'post', '/webhooks/{id}/replay', { params: id });

    await expectStatus(200, a.token, 'get', '/webhooks/{id}/attempts', { params: id });
    await expectStatus(200, a.token, 'get', '/webhooks/{id}/attempts', { params: id, query: { success: 'false', eventId: failed.body.eventId, limit: '5' } });
    await expectStatus(200, a.token, 'get', '/webhooks/{id}/attempts', { params: id, query: { event_id: failed.body.eventId } });
    await expectStatus(422, a.token, 'get', '/webhooks/{id}/attempts', { params: id, query: { success: 'maybe' } });
    await expectStatus(404, b.token, 'get', '/webhooks/{id}/attempts', { params: id });

    await expectStatus(202, a.token, 'post', '/webhooks/{id}/recover', { params: id, body: { since: new Date(Date.now() - 3_600_000).toISOString() } });
    await expectStatus(422, a.token, 'post', '/webhooks/{id}/recover', { params: id, body: { since: new Date(Date.now() + 3_600_000).toISOString() } });
    await expectStatus(422, a.token, 'post', '/webhooks/{id}/recover', { params: id, body: { since: 'yesterday' } });
    await expectStatus(422, a.token, 'post', '/webhooks/{id}/recover', { params: id, body: {} });
    await expectStatus(404, b.token, 'post', '/webhooks/{id}/recover', { params: id, body: { since: new Date().toISOString() } });

    await expectStatus(404, b.token, 'delete', '/webhooks/{id}', { params: id });
    await expectStatus(200, a.token, 'delete', '/webhooks/{id}', { params: id });
    await expectStatus(404, a.token, 'delete', '/webhooks/{id}', { params: id });
  });

  test('when managing sending domains, then each answer is as documented', async () => {
    dns.setZone({});
    const created = await expectStatus(201, a.token, 'post', '/domains', { body: { name: 'mail.acme.example' } });
    const id = { id: created.body.id as string };
    await expectStatus(409, a.token, 'post', '/domains', { body: { name: 'mail.acme.example' } });
    await expectStatus(422, a.token, 'post', '/domains', { body: { name: 'not a domain' } });
    await expectStatus(422, a.token, 'post', '/domains', { body: {} });

    await expectStatus(200, a.token, 'get', '/domains');
    await expectStatus(200, a.token, 'get', '/domains/{id}', { params: id });
    await expectStatus(404, b.token, 'get', '/domains/{id}', { params: id });
    await expectStatus(200, a.token, 'post', '/domains/{id}/verify', { params: id });
    dns.setZone(publish(created.body.records));
    await expectStatus(200, a.token, 'post', '/domains/{id}/verify', { params: id });
    await expectStatus(404, b.token, 'post', '/domains/{id}/verify', { params: id });
    await expectStatus(200, a.token, 'post', '/domains/{id}/rotate-dkim', { params: id });
    await expectStatus(200, a.token, 'get', '/domains/{id}', { params: id });
    await expectStatus(404, b.token, 'post', '/domains/{id}/rotate-dkim', { params: id });

    await expectStatus(404, b.token, 'delete', '/domains/{id}', { params: id });
    await expectStatus(200, a.token, 'delete', '/domains/{id}', { params: id });
    await expectStatus(404, a.token, 'delete', '/domains/{id}', { params: id });
  });

  test('when reading suppressions and stats, then each answer is as documented', async () => {
    await t.gateway.ctx.db.suppression.createMany({
      data: [
        { projectId: a.projectId, address: 'gone@example.test', reason: 'bounce', detail: '550 5.1.1 no such user' },
        { projectId: a.projectId, address: 'angry@example.test', reason: 'complaint' },
      ],
    });
    await expectStatus(200, a.token, 'get', '/suppressions');
    await expectStatus(200, a.token, 'get', '/suppressions', { query: { limit: '1' } });
    await expectStatus(422, a.token, 'get', '/suppressions', { query: { limit: '-1' } });
    await expectStatus(200, a.token, 'get', '/suppressions/{email}', { params: { email: 'gone@example.test' } });
    await expectStatus(200, a.token, 'get', '/suppressions/{email}', { params: { email: 'angry@example.test' } });
    await expectStatus(404, b.token, 'get', '/suppressions/{email}', { params: { email: 'gone@example.test' } });
    await expectStatus(200, a.token, 'delete', '/suppressions/{email}', { params: { email: 'gone@example.test' } });
    await expectStatus(404, a.token, 'delete', '/suppressions/{email}', { params: { email: 'gone@example.test' } });

    const now = Date.now();
    await expectStatus(200, a.token, 'get', '/stats');
    await expectStatus(200, a.token, 'get', '/stats', { query: { from: new Date(now - 86_400_000).toISOString(), to: new Date(now + 3_600_000).toISOString(), interval: 'hour' } });
    await expectStatus(200, a.as, 'get', '/stats', { query: { interval: 'day' } });
    await expectStatus(422, a.token, 'get', '/stats', { query: { interval: 'week' } });
    await expectStatus(422, a.token, 'get', '/stats', { query: { from: new Date(now).toISOString(), to: new Date(now - 3_600_000).toISOString() } });
    await expectStatus(403, a.sending, 'get', '/stats');
  });

  test('when calling the operations endpoints, then each answer is as documented', async () => {
    await expectStatus(200, anonymous, 'get', '/healthz');
    await expectStatus(200, anonymous, 'get', '/readyz');
    await expectStatus(200, anonymous.as({ token: METRICS_TOKEN }), 'get', '/metrics');
    await expectStatus(401, anonymous, 'get', '/metrics');
    await expectStatus(403, anonymous.as({ token: 'wrong' }), 'get', '/metrics');
    await expectStatus(200, anonymous, 'get', '/openapi.json');
    await expectStatus(200, anonymous, 'get', '/docs');
    await expectStatus(200, anonymous, 'get', '/docs/{asset}', { params: { asset: 'swagger-ui-bundle.js' } });
    await expectStatus(200, anonymous, 'get', '/docs/{asset}', { params: { asset: 'swagger-ui.css' } });
    await expectStatus(404, anonymous, 'get', '/docs/{asset}', { params: { asset: 'nothing.js' } });
  });

  test('when signup is closed, domains must be verified and limits are low, then the refusals are as documented', async () => {
    // Its own Redis prefix: its rate limits start from zero, whatever this file's other calls spent.
    const strict = await startTestGateway({
      database,
      env: { ...env, QUEUE_PREFIX: `${env.QUEUE_PREFIX}-strict`, ALLOW_SIGNUP: 'false', REQUIRE_VERIFIED_DOMAINS: 'true', LOGIN_RATE_LIMIT_PER_MINUTE: '2', RATE_LIMIT_PER_SECOND: '3' },
    });
    try {
      const api = strict.api;
      const token = api.as({ token: a.tokenValue });
      await expectStatus(403, api, 'post', '/auth/signup', { body: { email: 'late@example.com', password: 'correct horse battery' } });
      await expectStatus(403, token, 'post', '/emails', { body: { from: 'hello@unverified.example', to: SANDBOX('delivered'), subject: 'Hi', text: 'x' } });
      await expectStatus(403, token, 'post', '/emails/batch', { body: [{ from: 'hello@unverified.example', to: SANDBOX('delivered'), subject: 'Hi', text: 'x' }] });
      await expectStatus(403, token, 'post', '/routes', { body: { match: 'in@unverified.example' } });
      const logins = [];
      for (let i = 0; i < 3; i++) logins.push(await call(api, 'post', '/auth/login', { body: { email: a.email, password: 'correct horse battery' } }));
      expect(logins.map((r) => r.status)).toContain(429);
      const burst = await Promise.all(Array.from({ length: 12 }, () => call(token, 'get', '/routes')));
      expect(burst.map((r) => r.status)).toContain(429);
    } finally {
      await strict.close();
    }
  });

  test('then every operation of the document was called and checked', () => {
    const documented: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(item)) documented.push(`${method.toUpperCase()} ${path}`);
    }
    expect(documented.filter((operation) => !exercised.has(operation))).toEqual([]);
    // Each operation answered its documented success status at least once.
    const withoutSuccess = documented.filter((operation) => {
      const [method, path] = operation.split(' ') as [string, string];
      const success = Object.keys(doc.paths[path][method.toLowerCase()].responses).find((status) => status.startsWith('2'));
      return !exercised.get(operation)?.has(Number(success));
    });
    expect(withoutSuccess).toEqual([]);
  });
});

/** What a parsed received email shows (or null: not processed yet), with two attachments. */
function receivedFixture(projectId: string, routeIds: string[], raw: Buffer, parsed: boolean): ReceivedFixture {
  if (!parsed) return { projectId, routeIds, kind: routeIds.length > 0 ? 'route' : 'feedback', raw };
  return {
    projectId,
    routeIds,
    kind: routeIds.length > 0 ? 'route' : 'feedback',
    raw,
    parsed: {
      from: { address: 'alice@example.com', name: 'Alice' },
      to: [{ address: 'hello@received.example', name: '' }],
      cc: [{ address: 'bob@example.com', name: 'Bob' }],
      replyTo: [],
      subject: 'Hi',
      text: 'hello',
      html: '<p>hello</p>',
      textReply: 'hello',
      headers: [{ name: 'Subject', value: 'Hi' }],
      messageId: '<m1@example.com>',
      inReplyTo: null,
      references: [],
      date: '2026-11-20T08:30:00.000Z',
      authentication: { spf: { result: 'pass', domain: 'example.com' }, dkim: [], dmarc: { result: 'none', policy: null, domain: 'example.com' }, arc: { result: 'none' } },
    },
    attachments: [
      { filename: 'invoice.pdf', contentType: 'application/pdf', contentId: null, disposition: 'attachment', content: Buffer.from('%PDF-1.4 not really') },
      { filename: null, contentType: 'image/png', contentId: 'logo@acme', disposition: 'inline', content: Buffer.from([0x89, 0x50, 0x4e, 0x47]) },
    ],
  };
}
