import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { createKey, signUp, startTestGateway, type TestGateway } from '../../../test/support/gateway';
import type { ApiClient } from '../../../test/support/http';
import { TcpProxy } from '../../../test/support/tcp-proxy';

const valid = { from: 'Acme <hello@acme.test>', to: 'alice@example.test', subject: 'Hi', text: 'Hello' };

describe('POST /emails', () => {
  let t: TestGateway;
  let api: ApiClient;
  let projectId: string;
  beforeAll(async () => {
    t = await startTestGateway({ label: 'send', env: { ALLOW_SIGNUP: 'true' } });
    const owner = await signUp(t.api);
    projectId = owner.projectId;
    api = t.api.as({ token: (await createKey(owner.as, 'sending_access')).token });
  });
  afterAll(() => t.close());
  const emailCount = () => t.gateway.ctx.db.email.count({ where: { projectId } });

  test('when a valid email is sent, then 200 {id} comes after the email and its recipients are stored', async () => {
    const res = await api.post('/emails', { ...valid, to: ['alice@example.test', 'Bob <bob@example.test>'], cc: 'carol@example.test', bcc: ['ALICE@example.test'] });
    expect(res.status).toBe(200);
    // Development (REQUIRE_VERIFIED_DOMAINS off) and acme.test not verified: the answer says the mail goes unsigned.
    expect(Object.keys(res.body)).toEqual(['id', 'unsigned']);
    expect(res.body.id).toMatch(/^em_/);
    const email = await t.gateway.ctx.db.email.findUniqueOrThrow({ where: { id: res.body.id }, include: { recipients: true } });
    expect(email).toMatchObject({ projectId, status: 'queued', fromAddress: 'hello@acme.test', subject: 'Hi', trackOpens: false });
    // The bcc duplicate of alice (in another case) is one recipient.
    expect(email.recipients.map((r) => [r.address, r.kind, r.status]).sort()).toEqual([
      ['alice@example.test', 'to', 'queued'],
      ['bob@example.test', 'to', 'queued'],
      ['carol@example.test', 'cc', 'queued'],
    ]);
  });

  test("when a Resend SDK's snake_case body with attachments is sent, then every field is understood", async () => {
    const scheduled = new Date(Date.now() + 3600_000).toISOString();
    const res = await api.post('/emails', {
      from: 'hello@acme.test',
      to: ['alice@example.test'],
      subject: 'Report',
      html: '<p>Attached</p>',
      reply_to: 'support@acme.test',
      scheduled_at: scheduled,
      headers: { 'X-Entity-Ref-ID': '123', x_snake_header: 'kept as is' },
      tags: [{ name: 'category', value: 'reports' }],
      attachments: [
        { filename: 'a.txt', content: Buffer.from('hello world').toString('base64'), content_type: 'text/plain' },
        { filename: 'b.bin', content: { type: 'Buffer', data: [1, 2, 3] } },
      ],
    });
    expect(res.status).toBe(200);
    const email = await t.gateway.ctx.db.email.findUniqueOrThrow({ where: { id: res.body.id }, include: { attachments: { orderBy: { position: 'asc' } } } });
    expect(email.replyTo).toEqual(['support@acme.test']);
    expect(email.status).toBe('scheduled');
    expect(email.scheduledAt?.toISOString()).toBe(scheduled);
    expect(email.headers).toEqual({ 'X-Entity-Ref-ID': '123', x_snake_header: 'kept as is' });
    expect(email.tags).toEqual([{ name: 'category', value: 'reports' }]);
    expect(email.attachments.map((a) => [a.filename, a.contentType, Buffer.from(a.content).toString('hex')])).toEqual([
      ['a.txt', 'text/plain', Buffer.from('hello world').toString('hex')],
      ['b.bin', null, '010203'],
    ]);
  });

  test('when the project tracks by default, then sends inherit it unless they say otherwise', async () => {
    const owner = await signUp(t.api);
    await owner.as.patch(`/projects/${owner.projectId}`, { trackOpens: true, trackClicks: true });
    const inherit = await owner.as.post('/emails', valid);
    const override = await owner.as.post('/emails', { ...valid, track_clicks: false });
    const rows = await t.gateway.ctx.db.email.findMany({ where: { id: { in: [inherit.body.id, override.body.id] } }, orderBy: { id: 'asc' } });
    expect(rows.map((r) => [r.trackOpens, r.trackClicks])).toEqual([[true, true], [true, false]]);
  });

  const tooMany = Array.from({ length: 51 }, (_, i) => `r${i}@example.test`);
  test.each([
    ['from', { from: 'not an address' }, 'validation_error'],
    ['to', { to: ['ok@example.test', 'bad@'] }, 'validation_error'],
    ['to', { to: tooMany }, 'validation_error'],
    ['to', { to: tooMany.slice(0, 30), cc: tooMany.slice(30, 51) }, 'validation_error'],
    ['subject', { subject: 'Hi\r\nBcc: victim@example.test' }, 'validation_error'],
    ['headers', { headers: { 'X-Ok': 'a\nInjected: yes' } }, 'validation_error'],
    ['headers', { headers: { 'Bad Name': 'x' } }, 'validation_error'],
    ['headers.Return-Path', { headers: { 'Return-Path': 'x@example.test' } }, 'validation_error'],
    ['headers.In-Reply-To', { headers: { 'In-Reply-To': '<ünï@x.example>' } }, 'validation_error'],
    ['headers.references', { headers: { references: '<ref@x.example> <ü@x.example>' } }, 'validation_error'],
    ['headers.List-Unsubscribe', { headers: { 'List-Unsubscribe': '<https://example.com/ü>, <mailto:ü@example.com>' } }, 'validation_error'],
    ['headers.List-Id', { headers: { 'List-Id': 'News <nëws.acme.example>' } }, 'validation_error'],
    ['headers.dkim-signature', { headers: { 'dkim-signature': 'x' } }, 'validation_error'],
    ['attachments[0].content', { attachments: [{ filename: 'a', content: 'not base64!!' }] }, 'validation_error'],
    ['attachments[0].filename', { attachments: [{ filename: 'a\r\n', content: 'aGk=' }] }, 'validation_error'],
    ['tags[0].name', { tags: [{ name: 'has space', value: 'x' }] }, 'validation_error'],
    ['tags', { tags: Array.from({ length: 76 }, (_, i) => ({ name: `t${i}`, value: 'v' })) }, 'validation_error'],
    ['scheduledAt', { scheduledAt: '2001-01-01T00:00:00Z' }, 'validation_error'],
    ['scheduledAt', { scheduledAt: 'tomorrow-ish' }, 'validation_error'],
    ['scheduledAt', { scheduledAt: '9999-12-31T23:59:59-01:00' }, 'validation_error'],
    ['trackOpens', { trackOpens: 'yes' }, 'validation_error'],
    ['text', { text: 'nul \u0000 inside' }, 'validation_error'],
    ['headers.X-Nul', { headers: { 'X-Nul': 'a\u0000b' } }, 'validation_error'],
    ['subject', { subject: 'x'.repeat(998) }, 'validation_error'],
    ['headers.X-Long', { headers: { 'X-Long': 'y'.repeat(998) } }, 'validation_error'],
    ['html', { text: undefined }, 'missing_required_field'],
    ['to', { to: undefined }, 'missing_required_field'],
    ['subject', { subject: undefined }, 'missing_required_field'],
  ])('when %s is bad, then 422 naming it and nothing is stored', async (field, change, name) => {
    const before = await emailCount();
    const res = await api.post('/emails', { ...valid, ...change });
    expect(res.status).toBe(422);
    expect(res.body.name).toBe(name);
    expect(res.body.message).toContain(field.split('.')[0]!.replace(/\[.*$/, ''));
    expect(await emailCount()).toBe(before);
  });

  test('when optional fields are given as null (as some SDKs write absent ones), then they are taken as absent; a required one as null is missing', async () => {
    const nulls = { cc: null, bcc: null, replyTo: null, html: null, headers: null, attachments: null, tags: null, scheduledAt: null, trackOpens: null, trackClicks: null };
    const res = await api.post('/emails', { ...valid, ...nulls });
    expect(res.status).toBe(200);
    const row = await t.gateway.ctx.db.email.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(row).toMatchObject({ html: null, text: 'Hello', scheduledAt: null, trackOpens: false, trackClicks: false });
    const batch = await api.post('/emails/batch', [{ ...valid, cc: null, reply_to: null }]);
    expect(batch.status).toBe(200);
    // An attachment's optional members too.
    expect((await api.post('/emails', { ...valid, attachments: [{ filename: 'a.txt', content: 'eA==', contentType: null, contentId: null }] })).status).toBe(200);
    for (const field of ['from', 'to', 'subject'] as const) {
      const missing = await api.post('/emails', { ...valid, [field]: null });
      expect([field, missing.status, missing.body.name, missing.body.message]).toEqual([field, 422, 'missing_required_field', expect.stringContaining(`\`${field}\``)]);
    }
  });

  test('when a field is given in both spellings, then the same value is one field and different values are a 422 naming both', async () => {
    const same = await api.post('/emails', { ...valid, replyTo: 'support@acme.test', reply_to: 'support@acme.test' });
    expect(same.status).toBe(200);
    expect((await t.gateway.ctx.db.email.findUniqueOrThrow({ where: { id: same.body.id } })).replyTo).toEqual(['support@acme.test']);
    const before = await emailCount();
    for (const body of [
      { ...valid, reply_to: 'evil@example.test', replyTo: 'support@acme.test' },
      { ...valid, replyTo: 'support@acme.test', reply_to: 'evil@example.test' },
      { ...valid, attachments: [{ filename: 'a.txt', content: 'eA==', contentType: 'text/plain', content_type: 'text/html' }] },
    ]) {
      const res = await api.post('/emails', body);
      expect([res.status, res.body.name]).toEqual([422, 'validation_error']);
      expect(res.body.message).toMatch(/`(reply_to|content_type)` and `(replyTo|contentType)` are one field/);
    }
    expect(await emailCount()).toBe(before);
    // A null spelling is the absent one, in either order.
    for (const body of [{ ...valid, replyTo: null, reply_to: 'support@acme.test' }, { ...valid, reply_to: 'support@acme.test', replyTo: null }, { ...valid, reply_to: null, replyTo: 'support@acme.test' }]) {
      const res = await api.post('/emails', body);
      expect(res.status).toBe(200);
      expect((await t.gateway.ctx.db.email.findUniqueOrThrow({ where: { id: res.body.id } })).replyTo).toEqual(['support@acme.test']);
    }
  });

  test('when a subject or header value is long but can be folded, then it is accepted', async () => {
    const folded = `${'y'.repeat(500)} ${'y'.repeat(497)}`;
    const res = await api.post('/emails', { ...valid, subject: 'x'.repeat(997), headers: { 'X-Long': folded } });
    expect(res.status).toBe(200);
  });

  test('when the body is over 40 MB, then 413 payload_too_large and nothing is stored', async () => {
    const before = await emailCount();
    const huge = Buffer.alloc(31 * 1024 * 1024, 1).toString('base64');
    const res = await api.post('/emails', { ...valid, attachments: [{ filename: 'big.bin', content: huge }] });
    expect(res.status).toBe(413);
    expect(res.body.name).toBe('payload_too_large');
    expect(await emailCount()).toBe(before);
  });

  test('when a batch has one invalid item, then nothing is stored; when all are valid, then all ids come back in order', async () => {
    const before = await emailCount();
    const bad = await api.post('/emails/batch', [valid, { ...valid, to: 'nope' }]);
    expect(bad.status).toBe(422);
    expect(bad.body.message).toContain('[1].to');
    expect(await emailCount()).toBe(before);
    const ok = await api.post('/emails/batch', [valid, { ...valid, subject: 'Second' }]);
    expect(ok.status).toBe(200);
    expect(ok.body.data).toHaveLength(2);
    const rows = await t.gateway.ctx.db.email.findMany({ where: { id: { in: ok.body.data.map((d: { id: string }) => d.id) } } });
    expect(Object.fromEntries(rows.map((r) => [r.id, r.subject]))).toEqual({ [ok.body.data[0].id]: 'Hi', [ok.body.data[1].id]: 'Second' });
    expect((await api.post('/emails/batch', Array.from({ length: 101 }, () => valid))).status).toBe(422);
  });
});

describe('idempotency', () => {
  let t: TestGateway;
  let api: ApiClient;
  let projectId: string;
  beforeAll(async () => {
    t = await startTestGateway({ label: 'idempotency' });
    const owner = await signUp(t.api);
    projectId = owner.projectId;
    api = t.api.as({ token: (await createKey(owner.as)).token });
  });
  afterAll(() => t.close());
  const count = () => t.gateway.ctx.db.email.count({ where: { projectId } });
  const send = (key: string, body: unknown = valid) => api.post('/emails', body, { headers: { 'idempotency-key': key } });

  test('when the same key comes with the same body, then the original id returns and nothing is stored twice', async () => {
    const first = await send('order-1');
    const again = await send('order-1', { text: 'Hello', subject: 'Hi', to: 'alice@example.test', from: 'Acme <hello@acme.test>' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await t.gateway.ctx.db.email.count({ where: { id: first.body.id } })).toBe(1);
    expect(await count()).toBe(1);
  });

  test('when the same key comes with a different body, then 409 invalid_idempotent_request', async () => {
    await send('order-2');
    const res = await send('order-2', { ...valid, subject: 'Changed' });
    expect(res.status).toBe(409);
    expect(res.body.name).toBe('invalid_idempotent_request');
  });

  test('when the key is empty or longer than 256 characters, then 400 invalid_idempotency_key and nothing is stored', async () => {
    const before = await count();
    for (const key of ['', 'k'.repeat(257)]) {
      const res = await send(key);
      expect(res.status).toBe(400);
      expect(res.body.name).toBe('invalid_idempotency_key');
    }
    expect((await send('k'.repeat(256))).status).toBe(200);
    expect(await count()).toBe(before + 1);
  });

  test('when the key is malformed and the body is invalid too, then the key is what is refused: it is checked before the body is read', async () => {
    for (const body of [{ ...valid, to: 'bad' }, { subject: 'no from' }]) {
      const res = await send('k'.repeat(257), body);
      expect([res.status, res.body.name]).toEqual([400, 'invalid_idempotency_key']);
    }
  });

  test('when a request failed validation, then the key is not remembered and a corrected retry succeeds', async () => {
    expect((await send('order-3', { ...valid, to: 'bad' })).status).toBe(422);
    expect((await send('order-3')).status).toBe(200);
  });

  test('when two identical requests arrive at once, then exactly one email is created', async () => {
    const before = await count();
    const results = await Promise.all(Array.from({ length: 8 }, () => send('order-4')));
    const ok = results.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.body.id)).size).toBe(1);
    for (const r of results.filter((r) => r.status !== 200)) {
      expect(r.status).toBe(409);
      expect(r.body.name).toBe('concurrent_idempotent_requests');
    }
    expect(await count()).toBe(before + 1);
  });

  test('when keys are reused across endpoints or projects, then they do not collide', async () => {
    const single = await send('shared');
    const batch = await api.post('/emails/batch', [valid], { headers: { 'idempotency-key': 'shared' } });
    expect(batch.status).toBe(200);
    expect(batch.body.data[0].id).not.toBe(single.body.id);
  });
});

describe('reading, canceling and isolation', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ label: 'emailread', env: { ALLOW_SIGNUP: 'true' } });
  });
  afterAll(() => t.close());

  test('when an email is read, then it has its recipients, status and an empty timeline; another project gets 404', async () => {
    const a = await signUp(t.api);
    const b = await signUp(t.api);
    const { id } = (await a.as.post('/emails', { ...valid, tags: [{ name: 'k', value: 'v' }] })).body;
    const res = await a.as.get(`/emails/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'email', id, from: valid.from, to: ['alice@example.test'], cc: [], bcc: [], replyTo: [], subject: 'Hi', text: 'Hello', html: null,
      tags: [{ name: 'k', value: 'v' }], scheduledAt: null, status: 'queued', lastEvent: null, trackOpens: false, trackClicks: false,
      recipients: [{ email: 'alice@example.test', status: 'queued' }], events: [],
    });
    expect((await b.as.get(`/emails/${id}`)).status).toBe(404);
    expect((await b.as.post(`/emails/${id}/cancel`)).status).toBe(404);
    const bKey = await createKey(b.as, 'sending_access');
    expect((await t.api.get(`/emails/${id}`, { token: bKey.token })).body.name).toBe('restricted_api_key');
  });

  test('when listing, then pages come newest first and status filters', async () => {
    const owner = await signUp(t.api);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await owner.as.post('/emails', valid)).body.id);
    const scheduled = (await owner.as.post('/emails', { ...valid, scheduledAt: new Date(Date.now() + 60_000).toISOString() })).body.id;
    const page = await owner.as.get('/emails?limit=2');
    expect(page.body.data.map((e: { id: string }) => e.id)).toEqual([scheduled, ids[2]]);
    expect(page.body.hasMore).toBe(true);
    expect(page.body.data[0].events).toBeUndefined();
    const queued = await owner.as.get('/emails?status=queued');
    expect(queued.body.data.map((e: { id: string }) => e.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect((await owner.as.get('/emails?status=bogus')).status).toBe(422);
  });

  test('when a scheduled email is canceled, then it is canceled; anything else is 409 conflict', async () => {
    const owner = await signUp(t.api);
    const scheduled = (await owner.as.post('/emails', { ...valid, scheduledAt: new Date(Date.now() + 60_000).toISOString() })).body.id;
    const res = await owner.as.post(`/emails/${scheduled}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: scheduled, status: 'canceled', recipients: [{ email: 'alice@example.test', status: 'canceled' }] });
    expect((await owner.as.post(`/emails/${scheduled}/cancel`)).body.name).toBe('conflict');
    const queued = (await owner.as.post('/emails', valid)).body.id;
    const refused = await owner.as.post(`/emails/${queued}/cancel`);
    expect(refused.status).toBe(409);
    expect(refused.body.name).toBe('conflict');
  });

  test('when suppressions exist, then they are listed, read and deleted within the project only', async () => {
    const a = await signUp(t.api);
    const b = await signUp(t.api);
    await t.gateway.ctx.db.suppression.createMany({
      data: [
        { projectId: a.projectId, address: 'gone@example.test', reason: 'bounce', detail: '550 5.1.1 no such user' },
        { projectId: a.projectId, address: 'angry@example.test', reason: 'complaint' },
        { projectId: a.projectId, address: 'bob@xn--bcher-kva.example', reason: 'bounce' },
      ],
    });
    const list = await a.as.get('/suppressions');
    expect(list.body.data.map((s: { email: string }) => s.email).sort()).toEqual(['angry@example.test', 'bob@xn--bcher-kva.example', 'gone@example.test']);
    // An internationalized domain is looked up in the punycode form recipients are stored in.
    expect((await a.as.get(`/suppressions/${encodeURIComponent('Bob@Bücher.example')}`)).body).toMatchObject({ id: 'bob@xn--bcher-kva.example' });
    expect((await a.as.delete(`/suppressions/${encodeURIComponent('bob@bücher.example')}`)).body).toMatchObject({ id: 'bob@xn--bcher-kva.example', deleted: true });
    const one = await a.as.get('/suppressions/Gone@Example.test');
    expect(one.body).toMatchObject({ object: 'suppression', id: 'gone@example.test', reason: 'bounce', detail: '550 5.1.1 no such user' });
    expect((await b.as.get('/suppressions/gone@example.test')).status).toBe(404);
    expect((await b.as.delete('/suppressions/gone@example.test')).status).toBe(404);
    expect((await a.as.delete('/suppressions/gone@example.test')).body).toEqual({ object: 'suppression', id: 'gone@example.test', deleted: true });
    expect((await a.as.get('/suppressions')).body.data).toHaveLength(1);
  });

  test('when the address a page ended on is removed before the next page is read, then the next page still starts after it', async () => {
    const a = await signUp(t.api);
    const b = await signUp(t.api);
    const at = (seconds: number) => new Date(Date.UTC(2026, 11, 1, 10, 0, seconds));
    await t.gateway.ctx.db.suppression.createMany({
      data: ['s1', 's2', 's3', 's4', 's5'].map((name, i) => ({ projectId: a.projectId, address: `${name}@example.test`, reason: 'bounce' as const, createdAt: at(10 - i) })),
    });
    await t.gateway.ctx.db.suppression.create({ data: { projectId: b.projectId, address: 's2@example.test', reason: 'bounce', createdAt: at(0) } });
    const first = await a.as.get('/suppressions?limit=2');
    expect(first.body.data.map((s: { id: string }) => s.id)).toEqual(['s1@example.test', 's2@example.test']);
    expect((await a.as.delete('/suppressions/s2@example.test')).status).toBe(200);

    const next = await a.as.get('/suppressions?limit=2&after=s2@example.test');
    expect(next.body).toMatchObject({ hasMore: true, data: [{ id: 's3@example.test' }, { id: 's4@example.test' }] });
    // Another project's list is untouched, and its own suppression of that address still counts as its cursor.
    expect((await b.as.get('/suppressions')).body.data.map((s: { id: string }) => s.id)).toEqual(['s2@example.test']);
    // Suppressed again later, the address stands where it is now: first.
    await t.gateway.ctx.db.suppression.create({ data: { projectId: a.projectId, address: 's2@example.test', reason: 'complaint', createdAt: at(30) } });
    expect((await a.as.get('/suppressions?limit=2&after=s2@example.test')).body.data.map((s: { id: string }) => s.id)).toEqual(['s1@example.test', 's3@example.test']);
    expect((await a.as.delete('/suppressions/s2@example.test')).status).toBe(200);
    expect((await a.as.get('/suppressions?limit=1&after=s2@example.test')).body.data.map((s: { id: string }) => s.id)).toEqual(['s1@example.test']);
  });
});

describe('when Redis is down', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let t: TestGateway;
  beforeAll(async () => {
    database = await createTestDatabase('sendredis');
    proxy = await new TcpProxy('127.0.0.1', 6379).start();
    t = await startTestGateway({ database, env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}` } });
  });
  afterAll(async () => {
    await t.close();
    await proxy.stop();
    await database.drop();
  });

  test('then POST /emails answers 503 service_unavailable and stores nothing, and works again once it is back', async () => {
    const owner = await signUp(t.api);
    await proxy.stop();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const res = await owner.as.post('/emails', valid);
    expect(res.status).toBe(503);
    expect(res.body.name).toBe('service_unavailable');
    expect(await t.gateway.ctx.db.email.count()).toBe(0);
    await proxy.start();
    for (let i = 0; i < 50 && t.gateway.ctx.redis.status !== 'ready'; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await owner.as.post('/emails', valid)).status).toBe(200);
    expect(await t.gateway.ctx.db.email.count()).toBe(1);
  });
});
