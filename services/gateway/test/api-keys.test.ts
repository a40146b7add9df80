import { sha256Hex } from '@mailroom/core';
import { createKey, signUp, startTestGateway, type TestGateway } from '../../../test/support/gateway';

describe('API keys', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ label: 'apikeys', env: { ALLOW_SIGNUP: 'true' } });
  });
  afterAll(() => t.close());

  test('when a key is created, then its token is shown once and the database holds only its hash', async () => {
    const owner = await signUp(t.api);
    const res = await owner.as.post('/api-keys', { name: 'backend' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: 'api_key', name: 'backend', permission: 'full_access' });
    expect(res.body.token).toMatch(/^mr_[A-Za-z0-9_-]{43}$/);
    expect(res.body.id).toMatch(/^key_/);

    const row = await t.gateway.ctx.db.apiKey.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(row.tokenHash).toBe(sha256Hex(res.body.token));
    expect(JSON.stringify(row)).not.toContain(res.body.token);

    const list = await owner.as.get('/api-keys');
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ id: res.body.id, name: 'backend', tokenStart: res.body.token.slice(0, 7) });
    expect(list.text).not.toContain(res.body.token);

    const viaToken = await t.api.get('/projects', { token: res.body.token });
    expect(viaToken.status).toBe(200);
    expect(viaToken.body.data.map((p: { id: string }) => p.id)).toEqual([owner.projectId]);
  });

  test('when the token is malformed or unknown, then 403 invalid_api_key', async () => {
    for (const authorization of ['Bearer nope', 'Bearer mr_' + 'A'.repeat(43), 'Basic dXNlcjpwYXNz', 'Bearer']) {
      const res = await t.api.get('/api-keys', { headers: { authorization } });
      expect(res.status).toBe(403);
      expect(res.body.name).toBe('invalid_api_key');
    }
  });

  test('when a key is revoked, then it is refused at once, also by a second gateway on the same database and Redis', async () => {
    const owner = await signUp(t.api);
    const key = await createKey(owner.as);
    const second = await startTestGateway({ database: t.database, env: { QUEUE_PREFIX: t.config.queuePrefix } });
    try {
      expect((await second.api.get('/api-keys', { token: key.token })).status).toBe(200);
      const revoked = await t.api.delete(`/api-keys/${key.id}`, { token: key.token });
      expect(revoked.status).toBe(200);
      expect(revoked.body).toEqual({ object: 'api_key', id: key.id, deleted: true });
      for (const api of [t.api, second.api]) {
        const res = await api.get('/api-keys', { token: key.token });
        expect(res.status).toBe(403);
        expect(res.body.name).toBe('invalid_api_key');
      }
      expect((await owner.as.delete(`/api-keys/${key.id}`)).status).toBe(404);
    } finally {
      await second.close();
    }
  });

  test('when a sending_access key is used outside sending, then 403 restricted_api_key', async () => {
    const owner = await signUp(t.api);
    const key = await createKey(owner.as, 'sending_access');
    for (const [method, path] of [['GET', '/api-keys'], ['POST', '/api-keys'], ['GET', `/projects/${owner.projectId}`], ['PATCH', `/projects/${owner.projectId}`]] as const) {
      const res = await t.api.request(method, path, { token: key.token, ...(method === 'GET' ? {} : { body: {} }) });
      expect(res.status).toBe(403);
      expect(res.body.name).toBe('restricted_api_key');
    }
  });

  test("when project A's token asks for project B's resources, then 404 not_found", async () => {
    const a = await signUp(t.api);
    const b = await signUp(t.api);
    const aKey = await createKey(a.as);
    const bKey = await createKey(b.as);
    const api = t.api.as({ token: aKey.token });
    for (const res of [
      await api.get(`/projects/${b.projectId}`),
      await api.patch(`/projects/${b.projectId}`, { name: 'hijacked' }),
      await api.get(`/projects/${b.projectId}/members`),
      await api.delete(`/api-keys/${bKey.id}`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.name).toBe('not_found');
    }
    // A's session is no different.
    expect((await a.as.get(`/projects/${b.projectId}`)).status).toBe(404);
    expect((await b.as.get(`/projects/${b.projectId}`)).body.name).toBe('Acme');
    expect((await t.api.get('/api-keys', { token: bKey.token })).body.data).toHaveLength(1);
  });

  test('when listing keys, then limit and after page through them newest first', async () => {
    const owner = await signUp(t.api);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createKey(owner.as)).id);
    const first = await owner.as.get('/api-keys?limit=2');
    expect(first.body.data.map((k: { id: string }) => k.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.hasMore).toBe(true);
    const rest = await owner.as.get(`/api-keys?limit=10&after=${ids[3]}`);
    expect(rest.body.data.map((k: { id: string }) => k.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(rest.body.hasMore).toBe(false);
    for (const limit of ['0', '101', 'abc']) {
      const bad = await owner.as.get(`/api-keys?limit=${limit}`);
      expect(bad.status).toBe(422);
      expect(bad.body.name).toBe('validation_error');
      expect(bad.body.message).toContain('limit');
    }
  });
});
