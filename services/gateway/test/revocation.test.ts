import { REVOCATION_BOUND_MS } from '../src/auth/api-tokens';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { createKey, signUp, startTestGateway, type TestGateway } from '../../../test/support/gateway';
import type { ApiClient } from '../../../test/support/http';
import { TcpProxy } from '../../../test/support/tcp-proxy';

// Time for a request to travel on top of the stated bound.
const SLACK_MS = 500;

/** Milliseconds until `api` refuses the token with 403 invalid_api_key; fails past `within`. */
async function msUntilRefused(api: ApiClient, token: string, within: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    const res = await api.get('/api-keys', { token });
    if (res.status === 403 && res.body.name === 'invalid_api_key') return Date.now() - start;
    expect(res.status).toBe(200);
    if (Date.now() - start > within) throw new Error(`still accepted after ${Date.now() - start} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('API key revocation across replicas', () => {
  let database: TestDatabase;
  let redisProxy: TcpProxy;
  let postgresProxy: TcpProxy;
  let cut: TestGateway; // reaches Redis through a proxy the tests cut
  let healthy: TestGateway;
  let isolated: TestGateway; // reaches PostgreSQL through a proxy the tests cut
  let epochKey: string;

  beforeAll(async () => {
    database = await createTestDatabase('revocation');
    redisProxy = await new TcpProxy('127.0.0.1', 6379).start();
    postgresProxy = await new TcpProxy('127.0.0.1', 5432).start();
    healthy = await startTestGateway({ database, env: { ALLOW_SIGNUP: 'true' } });
    const prefix = healthy.config.queuePrefix;
    cut = await startTestGateway({ database, env: { QUEUE_PREFIX: prefix, REDIS_URL: `redis://127.0.0.1:${redisProxy.port}` } });
    const viaProxy = { ...database, url: database.url.replace(':5432/', `:${postgresProxy.port}/`) };
    isolated = await startTestGateway({ database: viaProxy, env: { QUEUE_PREFIX: prefix } });
    epochKey = `${prefix}:api-keys:revocation-epoch`;
  });
  afterAll(async () => {
    for (const t of [isolated, cut, healthy]) await t.close();
    await redisProxy.stop();
    await postgresProxy.stop();
    await database.drop();
  });

  test('when a replica that cannot reach Redis revokes a key, then it answers 200 and every other replica refuses the key within the bound', async () => {
    const owner = await signUp(healthy.api);
    const key = await createKey(owner.as);
    // The other replica has verified, and so cached, the key.
    expect((await healthy.api.get('/api-keys', { token: key.token })).status).toBe(200);
    const epochBefore = await healthy.gateway.ctx.redis.get(epochKey);
    await redisProxy.stop();

    const revoked = await cut.api.delete(`/api-keys/${key.id}`, { session: owner.session, project: owner.projectId });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ object: 'api_key', id: key.id, deleted: true });

    expect(await msUntilRefused(healthy.api, key.token, REVOCATION_BOUND_MS + SLACK_MS)).toBeLessThanOrEqual(REVOCATION_BOUND_MS + SLACK_MS);
    // It went through PostgreSQL: the Redis epoch never moved.
    expect(await healthy.gateway.ctx.redis.get(epochKey)).toBe(epochBefore);
    expect((await cut.api.get('/api-keys', { token: key.token })).status).toBe(403);

    // Once Redis is back, the revoking replica announces the revocation there too.
    await redisProxy.start();
    const deadline = Date.now() + 5_000;
    while ((await healthy.gateway.ctx.redis.get(epochKey)) === epochBefore && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await healthy.gateway.ctx.redis.get(epochKey)).not.toBe(epochBefore);
  });

  test('when a replica cannot read the revocation epoch from PostgreSQL, then it stops answering from its cache', async () => {
    const owner = await signUp(healthy.api);
    const key = await createKey(owner.as);
    // POST /projects is refused to API keys by authorization alone, which needs no database:
    // 403 forbidden shows the key was accepted, from the cache when PostgreSQL is cut.
    const createProject = () => isolated.api.post('/projects', { name: 'x' }, { token: key.token });
    expect((await createProject()).body.name).toBe('forbidden');
    await redisProxy.stop();
    await postgresProxy.stop();
    try {
      expect((await cut.api.delete(`/api-keys/${key.id}`, { session: owner.session, project: owner.projectId })).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, REVOCATION_BOUND_MS + SLACK_MS));
      const res = await createProject();
      expect(res.status).toBe(503);
      expect(res.body.name).toBe('service_unavailable');
    } finally {
      await postgresProxy.start();
      await redisProxy.start();
    }
    expect((await createProject()).body.name).toBe('invalid_api_key');
  });

  test('when a replica cannot reach Redis to read the epoch, then a revocation elsewhere takes effect on it at once', async () => {
    const owner = await signUp(healthy.api);
    const key = await createKey(owner.as);
    await redisProxy.stop();
    try {
      expect((await cut.api.get('/api-keys', { token: key.token })).status).toBe(200);
      expect((await healthy.api.delete(`/api-keys/${key.id}`, { token: key.token })).status).toBe(200);
      const res = await cut.api.get('/api-keys', { token: key.token });
      expect(res.status).toBe(403);
      expect(res.body.name).toBe('invalid_api_key');
    } finally {
      await redisProxy.start();
    }
  });
});
