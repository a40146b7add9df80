import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { createKey, signUp, startTestGateway, type TestGateway } from '../../../test/support/gateway';
import { TcpProxy } from '../../../test/support/tcp-proxy';

describe('when PostgreSQL goes away', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let t: TestGateway;
  let token: string;

  beforeAll(async () => {
    database = await createTestDatabase('outage');
    proxy = await new TcpProxy('127.0.0.1', 5432).start();
    const viaProxy = { ...database, url: database.url.replace(':5432/', `:${proxy.port}/`) };
    t = await startTestGateway({ database: viaProxy });
    const owner = await signUp(t.api);
    token = (await createKey(owner.as)).token;
  });
  afterAll(async () => {
    await t.close();
    await proxy.stop();
    await database.drop();
  });

  test('then requests answer 503 service_unavailable and /readyz fails, and both recover when it is back', async () => {
    expect((await t.api.get('/readyz')).status).toBe(200);
    await proxy.stop();

    const down = await t.api.get('/api-keys', { token });
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ name: 'service_unavailable', message: expect.any(String), statusCode: 503 });
    const send = await t.api.post('/emails', { from: 'a@acme.test', to: 'b@example.test', subject: 'x', text: 'y' }, { token });
    expect(send.status).toBe(503);
    expect(send.body.name).toBe('service_unavailable');
    const notReady = await t.api.get('/readyz');
    expect(notReady.status).toBe(503);
    expect(notReady.body).toMatchObject({ name: 'service_unavailable', statusCode: 503, checks: { postgres: 'unavailable', redis: 'ok' } });
    expect((await t.api.get('/healthz')).status).toBe(200);

    await proxy.start();
    expect((await t.api.get('/readyz')).status).toBe(200);
    const back = await t.api.get('/api-keys', { token });
    expect(back.status).toBe(200);
    expect(back.body.data).toHaveLength(1);
    // The refused send left nothing behind; a new one goes through.
    expect(await t.gateway.ctx.db.email.count()).toBe(0);
    expect((await t.api.post('/emails', { from: 'a@acme.test', to: 'b@example.test', subject: 'x', text: 'y' }, { token })).status).toBe(200);
    expect(await t.gateway.ctx.db.email.count()).toBe(1);
  });
});
