import { ROUTE_SCOPED_EVENT_TYPES } from '@mailroom/core';
import { Client } from 'pg';
import { DnsServer } from '../../../test/support/dns-server';
import { createKey, signUp, startTestGateway, type TestGateway } from '../../../test/support/gateway';
import type { ApiClient } from '../../../test/support/http';

// A public address (never contacted: these tests only manage endpoints).
const PUBLIC_IP = '93.184.215.14';
const URL_A = 'https://hooks.acme.test/mailroom';

describe('webhook endpoints: /webhooks', () => {
  let dns: DnsServer;
  let t: TestGateway;
  let db: Client;
  let a: { projectId: string; as: ApiClient };
  let b: { projectId: string; as: ApiClient };
  beforeAll(async () => {
    dns = await new DnsServer({ zone: { 'hooks.acme.test': { A: [PUBLIC_IP] }, 'other.acme.test': { A: [PUBLIC_IP] } } }).start();
    t = await startTestGateway({ label: 'webhooks', env: { ALLOW_SIGNUP: 'true', DNS_SERVERS: dns.address } });
    db = new Client({ connectionString: t.database.url });
    await db.connect();
    const ownerA = await signUp(t.api);
    a = { projectId: ownerA.projectId, as: t.api.as({ token: (await createKey(ownerA.as)).token }) };
    b = await signUp(t.api);
  });
  afterAll(async () => {
    await db.end();
    await t.close();
    await dns.stop();
  });

  test('when an endpoint is created, then 201 answers it with its secret, whsec_ and the base64 of 32 bytes, stored only encrypted', async () => {
    const res = await a.as.post('/webhooks', { url: URL_A, events: ['email.delivered', 'email.bounced'], description: 'CRM' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      object: 'webhook',
      id: expect.stringMatching(/^wh_[0-9A-Z]{26}$/),
      url: URL_A,
      events: ['email.delivered', 'email.bounced'],
      routeId: null,
      description: 'CRM',
      enabled: true,
      disabledReason: null,
      createdAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect(Buffer.from(res.body.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(Math.abs(Date.parse(res.body.createdAt) - Date.now())).toBeLessThan(60_000);
    const { rows } = await db.query('SELECT * FROM webhooks WHERE id = $1', [res.body.id]);
    expect(JSON.stringify(rows)).not.toContain(res.body.secret);
    expect(JSON.stringify(rows)).not.toContain(res.body.secret.slice('whsec_'.length));
  });

  test('when endpoints are read, listed, changed or deleted, then the secret is never shown', async () => {
    const created = await a.as.post('/webhooks', { url: URL_A, events: ['email.sent'] });
    const { secret, ...shown } = created.body;
    const got = await a.as.get(`/webhooks/${created.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(shown);
    const list = await a.as.get('/webhooks?limit=100');
    const patched = await a.as.patch(`/webhooks/${created.body.id}`, { description: 'x' });
    for (const res of [got, list, patched]) {
      expect(res.text).not.toContain(secret);
      expect(res.text).not.toContain('secret');
    }
    expect(list.body.data.find((w: { id: string }) => w.id === created.body.id)).toEqual(shown);
  });

  test('when an endpoint is changed, then PATCH changes only the fields given, and null clears description and routeId', async () => {
    const route = (await a.as.post('/routes', { match: `patch-${Date.now()}@acme.example` })).body.id;
    const { id } = (await a.as.post('/webhooks', { url: URL_A, events: ['email.received'], routeId: route, description: 'inbound' })).body;
    const res = await a.as.patch(`/webhooks/${id}`, { url: 'https://other.acme.test/in?x=1' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, url: 'https://other.acme.test/in?x=1', events: ['email.received'], routeId: route, description: 'inbound' });
    const cleared = await a.as.patch(`/webhooks/${id}`, { routeId: null, description: null, events: ['email.received', 'email.bounced'] });
    expect(cleared.body).toMatchObject({ routeId: null, description: null, events: ['email.received', 'email.bounced'] });
    // snake_case is accepted for every field (DESIGN §4).
    const snake = await a.as.patch(`/webhooks/${id}`, { events: ['email.received'], route_id: route });
    expect(snake.body).toMatchObject({ routeId: route, events: ['email.received'] });
  });

  test('when an endpoint is disabled and re-enabled, then disabledReason is manual, then cleared, and it is subscribed anew', async () => {
    const { id } = (await a.as.post('/webhooks', { url: URL_A, events: ['email.sent'] })).body;
    await db.query(`UPDATE webhooks SET subscribed_at = now() - interval '1 day', failing_since = now() - interval '1 hour' WHERE id = $1`, [id]);
    const disabled = await a.as.patch(`/webhooks/${id}`, { enabled: false });
    expect(disabled.body).toMatchObject({ enabled: false, disabledReason: 'manual' });
    // Disabled by the dispatcher (410): disabling again keeps its reason.
    await db.query(`UPDATE webhooks SET disabled_reason = 'gone' WHERE id = $1`, [id]);
    expect((await a.as.patch(`/webhooks/${id}`, { enabled: false })).body.disabledReason).toBe('gone');
    const before = (await db.query(`SELECT subscribed_at FROM webhooks WHERE id = $1`, [id])).rows[0].subscribed_at as Date;
    const enabled = await a.as.patch(`/webhooks/${id}`, { enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null });
    const { rows } = await db.query(`SELECT subscribed_at > $2::timestamp AS resubscribed, failing_since FROM webhooks WHERE id = $1`, [id, before]);
    expect(rows[0]).toEqual({ resubscribed: true, failing_since: null });
    // Created disabled: manual from the start.
    expect((await a.as.post('/webhooks', { url: URL_A, events: ['email.sent'], enabled: false })).body).toMatchObject({ enabled: false, disabledReason: 'manual' });
  });

  test('when an endpoint is deleted, then DELETE answers {object, id, deleted} and it is gone', async () => {
    const { id } = (await a.as.post('/webhooks', { url: URL_A, events: ['email.sent'] })).body;
    const res = await a.as.delete(`/webhooks/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'webhook', id, deleted: true });
    expect((await a.as.get(`/webhooks/${id}`)).status).toBe(404);
    expect((await a.as.delete(`/webhooks/${id}`)).status).toBe(404);
  });

  test('when the secret is rotated, then the new secret is answered once and the previous one is kept for 24 hours', async () => {
    const created = (await a.as.post('/webhooks', { url: URL_A, events: ['email.sent'] })).body;
    const res = await a.as.post(`/webhooks/${created.id}/rotate-secret`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'webhook', id: created.id, secret: expect.stringMatching(/^whsec_/) });
    expect(res.body.secret).not.toBe(created.secret);
    const { rows } = await db.query(
      `SELECT previous_secret_ciphertext IS NOT NULL AS kept, round(extract(epoch FROM previous_secret_expires_at - (now() AT TIME ZONE 'UTC')) / 3600) AS hours
         FROM webhooks WHERE id = $1`,
      [created.id],
    );
    expect(rows[0]).toEqual({ kept: true, hours: '24' });
    expect((await a.as.get(`/webhooks/${created.id}`)).text).not.toContain(res.body.secret);
  });

  test('when a list is paged, then it is newest first with limit and after, and shows only the project\'s endpoints', async () => {
    const c = t.api.as({ token: (await createKey((await signUp(t.api)).as)).token });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await c.post('/webhooks', { url: `${URL_A}/${i}`, events: ['email.sent'] })).body.id);
    const first = await c.get('/webhooks?limit=2');
    expect(first.body.data.map((w: { id: string }) => w.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.hasMore).toBe(true);
    const second = await c.get(`/webhooks?limit=2&after=${ids[3]}`);
    expect(second.body.data.map((w: { id: string }) => w.id)).toEqual([ids[2], ids[1]]);
    const last = await c.get(`/webhooks?limit=2&after=${ids[1]}`);
    expect(last.body).toEqual({ object: 'list', data: [expect.objectContaining({ id: ids[0] })], hasMore: false });
    expect((await c.get('/webhooks?limit=0')).status).toBe(422);
    expect((await c.get('/webhooks?limit=101')).status).toBe(422);
  });

  describe('validation: each broken rule is 422 naming the field', () => {
    const expect422 = async (body: unknown, field: string, words: RegExp, method: 'post' | 'patch' = 'post', id?: string) => {
      const res = method === 'post' ? await a.as.post('/webhooks', body) : await a.as.patch(`/webhooks/${id}`, body);
      expect({ status: res.status, name: res.body.name }).toEqual({ status: 422, name: expect.stringMatching(/^(validation_error|missing_required_field)$/) });
      expect(res.body.message).toContain(field);
      expect(res.body.message).toMatch(words);
      return res;
    };

    test('when the URL is missing, not a URL, not http(s), or carries credentials, then 422 says why', async () => {
      expect((await expect422({ events: ['email.sent'] }, 'url', /missing/i)).body.name).toBe('missing_required_field');
      await expect422({ url: 'not a url', events: ['email.sent'] }, 'url', /absolute http\(s\) URL/);
      await expect422({ url: 'ftp://hooks.acme.test/x', events: ['email.sent'] }, 'url', /http or https, not ftp/);
      await expect422({ url: 'javascript:alert(1)', events: ['email.sent'] }, 'url', /http or https/);
      await expect422({ url: 'https://user:pw@hooks.acme.test/x', events: ['email.sent'] }, 'url', /user name or password.*leak/);
      await expect422({ url: 'https://token@hooks.acme.test/x', events: ['email.sent'] }, 'url', /user name or password/);
      await expect422({ url: 42, events: ['email.sent'] }, 'url', /string/);
      await expect422({ url: 'https://hooks.acme.test:0/x', events: ['email.sent'] }, 'url', /port 0/);
      await expect422({ url: 'https://hooks.acme.test:65536/x', events: ['email.sent'] }, 'url', /absolute http\(s\) URL/);
      await expect422({ url: `https://hooks.acme.test/${'x'.repeat(3000)}`, events: ['email.sent'] }, 'url', /2048/);
      // Names DNS cannot hold: refused as such, not as a lookup to try again.
      for (const host of ['hooks..acme.test', `${'a'.repeat(64)}.acme.test`, `${'abcdefgh.'.repeat(28)}test`]) {
        await expect422({ url: `https://${host}/x`, events: ['email.sent'] }, 'url', /host name DNS can hold/);
      }
    });

    test('when events are missing, empty, unknown or webhook.test, then 422', async () => {
      await expect422({ url: URL_A }, 'events', /missing/i);
      await expect422({ url: URL_A, events: [] }, 'events', /at least one/);
      await expect422({ url: URL_A, events: ['email.sent', 'email.exploded'] }, 'events[1]', /unknown event type "email.exploded"; known types are email.sent/);
      await expect422({ url: URL_A, events: ['webhook.test'] }, 'events[0]', /sent only by POST \/webhooks\/\{id\}\/test/);
      await expect422({ url: URL_A, events: 'email.sent' }, 'events', /array/);
    });

    test('when routeId is not a route of the project, then 422 unknown route, the same for another project\'s route', async () => {
      const routeOfB = (await b.as.post('/routes', { match: `b-${Date.now()}@acme.example` })).body.id;
      const unknown = await expect422({ url: URL_A, events: ['email.received'], routeId: 'rt_01KAQ7D1E2F3G4H5J6K7M8N9P0' }, 'routeId', /unknown route/);
      const foreign = await expect422({ url: URL_A, events: ['email.received'], routeId: routeOfB }, 'routeId', /unknown route/);
      expect(foreign.body.message.replace(routeOfB, 'ID')).toBe(unknown.body.message.replace('rt_01KAQ7D1E2F3G4H5J6K7M8N9P0', 'ID'));
      await expect422({ url: URL_A, events: ['email.received'], routeId: 'nonsense' }, 'routeId', /unknown route/);
      const { id } = (await a.as.post('/webhooks', { url: URL_A, events: ['email.received'] })).body;
      await expect422({ routeId: routeOfB }, 'routeId', /unknown route/, 'patch', id);
      expect((await a.as.get(`/webhooks/${id}`)).body.routeId).toBeNull();
    });

    test('when an endpoint with routeId subscribes to a type that is not route-scoped, then 422, on creation and on PATCH', async () => {
      expect(ROUTE_SCOPED_EVENT_TYPES).toEqual(['email.received']);
      const route = (await a.as.post('/routes', { match: `scoped-${Date.now()}@acme.example` })).body.id;
      await expect422({ url: URL_A, events: ['email.received', 'email.bounced'], routeId: route }, 'events', /email.bounced cannot be subscribed to/);
      const scoped = (await a.as.post('/webhooks', { url: URL_A, events: ['email.received'], routeId: route })).body;
      expect(scoped.routeId).toBe(route);
      // Only events on a scoped endpoint, or only the route on an endpoint with other types.
      await expect422({ events: ['email.sent'] }, 'events', /route/, 'patch', scoped.id);
      const wide = (await a.as.post('/webhooks', { url: URL_A, events: ['email.sent'] })).body;
      await expect422({ routeId: route }, 'events', /email.sent cannot be subscribed to/, 'patch', wide.id);
      expect((await a.as.get(`/webhooks/${wide.id}`)).body.routeId).toBeNull();
    });

    test('when other fields have the wrong type or size, or the body is not an object, then 422', async () => {
      await expect422({ url: URL_A, events: ['email.sent'], enabled: 'yes' }, 'enabled', /boolean/);
      await expect422({ url: URL_A, events: ['email.sent'], description: 'x'.repeat(501) }, 'description', /500/);
      const res = await a.as.request('POST', '/webhooks', { rawBody: '[1]', headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(422);
      const broken = await a.as.request('POST', '/webhooks', { rawBody: '{"url":', headers: { 'content-type': 'application/json' } });
      expect(broken.body).toMatchObject({ name: 'invalid_json', statusCode: 400 });
    });
  });

  test('when a route has endpoints scoped to it, then deleting it is 409 naming them, and allowed once they are gone', async () => {
    const route = (await a.as.post('/routes', { match: `busy-${Date.now()}@acme.example` })).body.id;
    const one = (await a.as.post('/webhooks', { url: URL_A, events: ['email.received'], routeId: route })).body.id;
    const two = (await a.as.post('/webhooks', { url: URL_A, events: ['email.received'], routeId: route })).body.id;
    const res = await a.as.delete(`/routes/${route}`);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ name: 'conflict', statusCode: 409, message: expect.stringContaining(`(${one}, ${two})`) });
    expect((await a.as.get(`/routes/${route}`)).status).toBe(200);
    await a.as.delete(`/webhooks/${one}`);
    await a.as.patch(`/webhooks/${two}`, { routeId: null });
    expect((await a.as.delete(`/routes/${route}`)).status).toBe(200);
  });

  test("when another project's endpoint is named, then every path answers 404 and nothing changes", async () => {
    const theirs = (await b.as.post('/webhooks', { url: URL_A, events: ['email.sent'] })).body;
    const paths: Array<[string, string, unknown?]> = [
      ['GET', `/webhooks/${theirs.id}`],
      ['PATCH', `/webhooks/${theirs.id}`, { enabled: false }],
      ['DELETE', `/webhooks/${theirs.id}`],
      ['POST', `/webhooks/${theirs.id}/rotate-secret`],
    ];
    for (const [method, path, body] of paths) {
      const res = await a.as.request(method, path, { body });
      expect({ path, method, status: res.status, name: res.body.name }).toEqual({ path, method, status: 404, name: 'not_found' });
    }
    expect((await a.as.get('/webhooks?limit=100')).body.data.map((w: { id: string }) => w.id)).not.toContain(theirs.id);
    const after = await b.as.get(`/webhooks/${theirs.id}`);
    expect(after.body).toMatchObject({ enabled: true });
    const { rows } = await db.query('SELECT previous_secret_ciphertext FROM webhooks WHERE id = $1', [theirs.id]);
    expect(rows[0].previous_secret_ciphertext).toBeNull();
    // Malformed and unknown ids are 404 too.
    expect((await a.as.get('/webhooks/wh_nope')).status).toBe(404);
    expect((await a.as.get('/webhooks/wh_01KAQ9B1C2D3E4F5G6H7J8K9M0')).status).toBe(404);
  });
});
