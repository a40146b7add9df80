import { SignJWT } from 'jose';
import { deriveKey } from '@mailroom/core';
import { createKey, signUp, startTestGateway, TEST_SECRET_KEY, type TestGateway } from '../../../test/support/gateway';

describe('console sessions and roles', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ label: 'auth', env: { ALLOW_SIGNUP: 'true' } });
  });
  afterAll(() => t.close());

  test('when signing up, then the user owns a first project and gets a working session', async () => {
    const res = await t.api.post('/auth/signup', { email: 'Owner@Example.com', password: 'long enough pw', projectName: 'First' });
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({ object: 'user', email: 'owner@example.com' });
    expect(res.body.user.id).toMatch(/^usr_/);
    expect(res.body.project).toMatchObject({ object: 'project', name: 'First', trackOpens: false, trackClicks: false });
    expect(res.body.project.id).toMatch(/^proj_/);
    const projects = await t.api.get('/projects', { session: res.body.sessionToken });
    expect(projects.status).toBe(200);
    expect(projects.body.data.map((p: { id: string }) => p.id)).toEqual([res.body.project.id]);
  });

  test('when the email is taken (in any case), then signup answers 409 conflict', async () => {
    await signUp(t.api, 'taken@example.com');
    const res = await t.api.post('/auth/signup', { email: 'TAKEN@example.com', password: 'another password' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ name: 'conflict', message: expect.any(String), statusCode: 409 });
  });

  test('when logging in, then the right password gives a session and the wrong one 401 invalid_credentials', async () => {
    const owner = await signUp(t.api, 'login@example.com');
    const ok = await t.api.post('/auth/login', { email: 'login@example.com', password: 'correct horse battery' });
    expect(ok.status).toBe(200);
    expect(ok.body.user.id).toBe(owner.userId);
    expect(ok.body.projects.map((p: { id: string }) => p.id)).toEqual([owner.projectId]);
    const wrong = await t.api.post('/auth/login', { email: 'login@example.com', password: 'wrong password' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.name).toBe('invalid_credentials');
    const unknown = await t.api.post('/auth/login', { email: 'nobody@example.com', password: 'whatever123' });
    expect(unknown.status).toBe(401);
    expect(unknown.body.name).toBe('invalid_credentials');
  });

  test("when an owner's session creates a project, then it answers 201 with a proj_ id the owner owns", async () => {
    const owner = await signUp(t.api);
    const res = await owner.as.post('/projects', { name: 'Second', trackOpens: true });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: 'project', name: 'Second', trackOpens: true, trackClicks: false });
    expect(res.body.id).toMatch(/^proj_[0-9A-Z]{26}$/);
    const members = await owner.as.get(`/projects/${res.body.id}/members`);
    expect(members.body.data).toEqual([expect.objectContaining({ id: owner.userId, role: 'owner' })]);
  });

  test('when a member who is not an owner creates a project, then 403 forbidden', async () => {
    const owner = await signUp(t.api);
    const other = await signUp(t.api);
    const added = await owner.as.post(`/projects/${owner.projectId}/members`, { email: other.email, role: 'member' });
    expect(added.status).toBe(201);
    const res = await t.api.post('/projects', { name: 'Nope' }, { session: other.session, project: owner.projectId });
    expect(res.status).toBe(403);
    expect(res.body.name).toBe('forbidden');
    // The same user may still do member things in that project.
    const keys = await t.api.get('/api-keys', { session: other.session, project: owner.projectId });
    expect(keys.status).toBe(200);
  });

  test('when an API token creates a project, then 403 forbidden (a console session is required)', async () => {
    const owner = await signUp(t.api);
    const { token } = await createKey(owner.as);
    const res = await t.api.post('/projects', { name: 'Nope' }, { token });
    expect(res.status).toBe(403);
    expect(res.body.name).toBe('forbidden');
  });

  test('when the session token is tampered with, then 401 invalid_session', async () => {
    const owner = await signUp(t.api);
    const [header, payload, signature] = owner.session.split('.');
    const forgedPayload = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: 'usr_01ABCDEFGHJKMNPQRSTVWXYZ00' })).toString('base64url');
    for (const session of [`${header}.${forgedPayload}.${signature}`, `${owner.session}x`, 'not-a-jwt']) {
      const res = await t.api.get('/projects', { session });
      expect(res.status).toBe(401);
      expect(res.body.name).toBe('invalid_session');
    }
  });

  test('when the session has expired, then 401 invalid_session', async () => {
    const owner = await signUp(t.api);
    const expired = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(owner.userId)
      .setIssuer('mailroom')
      .setAudience('mailroom-console')
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(deriveKey(TEST_SECRET_KEY, 'session'));
    const res = await t.api.get('/projects', { session: expired });
    expect(res.status).toBe(401);
    expect(res.body.name).toBe('invalid_session');
  });

  test('when X-Project-Id names a project the user is not in, then 403 forbidden', async () => {
    const a = await signUp(t.api);
    const b = await signUp(t.api);
    const res = await t.api.get('/api-keys', { session: a.session, project: b.projectId });
    expect(res.status).toBe(403);
    expect(res.body.name).toBe('forbidden');
    const missing = await t.api.get('/api-keys', { session: a.session });
    expect(missing.status).toBe(422);
    expect(missing.body.message).toContain('X-Project-Id');
  });

  test('when no credentials are sent, then 401 missing_api_key', async () => {
    const res = await t.api.get('/api-keys');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ name: 'missing_api_key', message: expect.any(String), statusCode: 401 });
  });

  test('when Authorization is present, then it decides and the session headers are ignored', async () => {
    const owner = await signUp(t.api);
    const res = await t.api.get('/projects', { session: owner.session, token: 'mr_bogus' });
    expect(res.status).toBe(403);
    expect(res.body.name).toBe('invalid_api_key');
  });
});

describe('signup policy', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ label: 'signup', env: { LOGIN_RATE_LIMIT_PER_MINUTE: '5' } });
  });
  afterAll(() => t.close());

  test('when ALLOW_SIGNUP is unset, then the first signup works and later ones get 403 forbidden', async () => {
    const first = await t.api.post('/auth/signup', { email: 'first@example.com', password: 'long enough pw' });
    expect(first.status).toBe(201);
    const second = await t.api.post('/auth/signup', { email: 'second@example.com', password: 'long enough pw' });
    expect(second.status).toBe(403);
    expect(second.body.name).toBe('forbidden');
    expect(await t.gateway.ctx.db.user.count()).toBe(1);
  });

  test('when many sign-ins come from one IP, then 429 rate_limit_exceeded with headers', async () => {
    let last = await t.api.post('/auth/login', { email: 'first@example.com', password: 'wrong password' });
    for (let i = 0; i < 12 && last.status !== 429; i++) {
      last = await t.api.post('/auth/login', { email: 'first@example.com', password: 'wrong password' });
    }
    expect(last.status).toBe(429);
    expect(last.body.name).toBe('rate_limit_exceeded');
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last.headers.get('ratelimit-remaining')).toBe('0');
  });
});

describe('ADMIN_EMAIL bootstrap', () => {
  test('when ADMIN_EMAIL and ADMIN_PASSWORD are set and no user exists, then that owner and a project are created once', async () => {
    const env = { ADMIN_EMAIL: 'admin@example.com', ADMIN_PASSWORD: 'admin password 1' };
    const t = await startTestGateway({ label: 'admin', env });
    try {
      const login = await t.api.post('/auth/login', { email: 'admin@example.com', password: 'admin password 1' });
      expect(login.status).toBe(200);
      expect(login.body.projects).toHaveLength(1);
      const again = await startTestGateway({ database: t.database, env });
      await again.close();
      expect(await t.gateway.ctx.db.user.count()).toBe(1);
      expect(await t.gateway.ctx.db.project.count()).toBe(1);
    } finally {
      await t.close();
    }
  });
});
