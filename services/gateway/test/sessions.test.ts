import { SignJWT } from 'jose';
import { deriveKey } from '@mailroom/core';
import { createKey, signUp, startTestGateway, TEST_SECRET_KEY, type TestGateway } from '../../../test/support/gateway';

const sessionKey = deriveKey(TEST_SECRET_KEY, 'session');

/** A session token signed with the real session sub-key, carrying exactly the claims asked for. */
function signSession(userId: string, claims: { jti?: boolean; iat?: boolean; exp?: boolean }): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  let jwt = new SignJWT({}).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(userId).setIssuer('mailroom').setAudience('mailroom-console');
  if (claims.jti) jwt = jwt.setJti(`hand-made-${now}-${Math.random()}`);
  if (claims.iat) jwt = jwt.setIssuedAt(now);
  if (claims.exp) jwt = jwt.setExpirationTime(now + 600);
  return jwt.sign(sessionKey);
}

describe('console sessions', () => {
  let a: TestGateway;
  let b: TestGateway;
  beforeAll(async () => {
    a = await startTestGateway({ label: 'sessions', env: { ALLOW_SIGNUP: 'true' } });
    // A second replica on the same database, with nothing shared in memory.
    b = await startTestGateway({ database: a.database, env: { ALLOW_SIGNUP: 'true' } });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  test('when a token signed with the session key carries sub, jti, iat and exp, then it is accepted', async () => {
    const owner = await signUp(a.api);
    const res = await a.api.get('/projects', { session: await signSession(owner.userId, { jti: true, iat: true, exp: true }) });
    expect(res.status).toBe(200);
  });

  test.each([
    ['exp', { jti: true, iat: true }],
    ['iat', { jti: true, exp: true }],
    ['jti', { iat: true, exp: true }],
  ])('when a token signed with the session key lacks %s, then 401 invalid_session', async (_claim, claims) => {
    const owner = await signUp(a.api);
    const res = await a.api.get('/projects', { session: await signSession(owner.userId, claims) });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ name: 'invalid_session', message: expect.any(String), statusCode: 401 });
  });

  test('when a session signs out on one replica, then it is refused at once on every replica, and other sessions go on', async () => {
    const owner = await signUp(a.api);
    const login = await b.api.post('/auth/login', { email: owner.email, password: 'correct horse battery' });
    const other = login.body.sessionToken as string;
    expect((await b.api.get('/projects', { session: owner.session })).status).toBe(200);

    const out = await a.api.post('/auth/logout', undefined, { session: owner.session });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ object: 'session', revoked: true, expiresAt: expect.any(String) });
    expect(Date.parse(out.body.expiresAt)).toBeGreaterThan(Date.now());

    for (const api of [b.api, a.api]) {
      const res = await api.get('/projects', { session: owner.session });
      expect(res.status).toBe(401);
      expect(res.body.name).toBe('invalid_session');
      expect((await api.get('/api-keys', { session: owner.session, project: owner.projectId })).status).toBe(401);
    }
    expect((await b.api.post('/auth/logout', undefined, { session: owner.session })).status).toBe(401);
    expect((await a.api.get('/projects', { session: other })).status).toBe(200);
  });

  test('when an API key or nothing is sent to /auth/logout, then it is refused and nothing is revoked', async () => {
    const owner = await signUp(a.api);
    const full = await createKey(owner.as);
    const sending = await createKey(owner.as, 'sending_access');
    const byKey = await a.api.post('/auth/logout', undefined, { token: full.token });
    expect(byKey.status).toBe(403);
    expect(byKey.body.name).toBe('forbidden');
    expect((await a.api.post('/auth/logout', undefined, { token: sending.token })).body.name).toBe('restricted_api_key');
    const anonymous = await a.api.post('/auth/logout');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.name).toBe('missing_api_key');
    expect((await a.api.get('/api-keys', { token: full.token })).status).toBe(200);
    expect(await a.gateway.ctx.db.revokedSession.count({ where: { userId: owner.userId } })).toBe(0);
  });

  test('when signing out, then revocations of sessions that have expired anyway are pruned', async () => {
    const owner = await signUp(a.api);
    const db = a.gateway.ctx.db;
    await db.revokedSession.create({ data: { jti: 'long-gone', userId: owner.userId, expiresAt: new Date(Date.now() - 60_000) } });
    expect((await a.api.post('/auth/logout', undefined, { session: owner.session })).status).toBe(200);
    expect(await db.revokedSession.findUnique({ where: { jti: 'long-gone' } })).toBeNull();
    expect(await db.revokedSession.count({ where: { userId: owner.userId } })).toBe(1);
  });

  test('when the OpenAPI document is read, then it lists POST /auth/logout as logOut, for console sessions only', async () => {
    const doc = (await a.api.get('/openapi.json')).body;
    expect(doc.paths['/auth/logout'].post.operationId).toBe('logOut');
    expect(doc.paths['/auth/logout'].post.security).toEqual([{ consoleSession: [] }]);
  });
});
