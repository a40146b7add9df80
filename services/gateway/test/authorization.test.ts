import { isSendingRoute } from '../src/http/route';
import { allRoutes } from '../src/routes';
import { createKey, signUp, startTestGateway, type TestGateway } from '../../../test/support/gateway';
import type { ApiResponse } from '../../../test/support/http';

const { routes } = allRoutes('http://x');
const authenticated = routes.filter((route) => route.access.kind !== 'public');
const restricted = authenticated.filter((route) => !isSendingRoute(route.access));
const sending = authenticated.filter((route) => isSendingRoute(route.access));

function expectRateLimitHeaders(res: ApiResponse): void {
  expect(res.headers.get('ratelimit-limit')).toBe('1000');
  expect(Number(res.headers.get('ratelimit-remaining'))).toBeLessThan(1000);
  expect(res.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
}

describe('what an API key may do', () => {
  let t: TestGateway;
  let owner: Awaited<ReturnType<typeof signUp>>;
  let other: Awaited<ReturnType<typeof signUp>>;
  let sendingKey: string;
  let fullKey: string;
  beforeAll(async () => {
    t = await startTestGateway({ label: 'authorization', env: { ALLOW_SIGNUP: 'true' } });
    owner = await signUp(t.api);
    other = await signUp(t.api);
    sendingKey = (await createKey(owner.as, 'sending_access')).token;
    fullKey = (await createKey(owner.as)).token;
  });
  afterAll(() => t.close());

  // A path of the route with the key's own project where it names one, so only the permission can refuse.
  const pathOf = (path: string) => path.replace('{id}', owner.projectId).replace(/\{\w+\}/g, 'x');

  test('when the route table is read, then it has both sending routes and others to check', () => {
    expect(sending.map((r) => `${r.method} ${r.path}`).sort()).toEqual(['post /emails', 'post /emails/batch']);
    expect(restricted.length).toBeGreaterThan(10);
  });

  test.each(restricted.map((route) => [route.method.toUpperCase(), route.path, route] as const))(
    'when a sending_access key calls %s %s, then 403 restricted_api_key with rate-limit headers',
    async (method, path, route) => {
      const res = await t.api.request(method, pathOf(path), { token: sendingKey, ...(route.body ? { body: {} } : {}) });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ name: 'restricted_api_key', message: expect.stringContaining('sending_access'), statusCode: 403 });
      expectRateLimitHeaders(res);
    },
  );

  test('when a sending_access key sends, then it is not refused for its permission', async () => {
    const single = await t.api.post('/emails', { from: 'a@acme.test', to: 'b@example.test', subject: 'hi', text: 'x' }, { token: sendingKey });
    expect(single.status).toBe(200);
    const batch = await t.api.post('/emails/batch', [{ from: 'a@acme.test', to: 'b@example.test', subject: 'hi', text: 'x' }], { token: sendingKey });
    expect(batch.status).toBe(200);
    expectRateLimitHeaders(batch);
  });

  test.each([
    ['a full_access key creating a project', 403, 'forbidden', () => t.api.post('/projects', { name: 'x' }, { token: fullKey })],
    ["a key reading another project", 404, 'not_found', () => t.api.get(`/projects/${other.projectId}`, { token: fullKey })],
    ['a session naming a project it is not in', 403, 'forbidden', () => t.api.get('/api-keys', { session: owner.session, project: other.projectId })],
    ['a session without X-Project-Id', 422, 'missing_required_field', () => t.api.get('/api-keys', { session: owner.session })],
    ["a member's session managing members", 404, 'not_found', () => other.as.post(`/projects/${owner.projectId}/members`, { email: other.email })],
    ['an invalid query', 422, 'validation_error', () => t.api.get('/api-keys?limit=0', { token: fullKey })],
    ['an invalid body', 422, 'validation_error', () => t.api.post('/api-keys', { name: 'x', permission: 'root' }, { token: fullKey })],
    ['a missing resource', 404, 'not_found', () => t.api.delete('/api-keys/key_01ARZ3NDEKTSV4RRFFQ69G5FAV', { token: fullKey })],
  ] as const)('when refusing %s, then %i %s carries the rate-limit headers', async (_what, status, name, call) => {
    const res = await call();
    expect(res.status).toBe(status);
    expect(res.body.name).toBe(name);
    expectRateLimitHeaders(res);
  });
});

describe('when authorization refuses requests', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ label: 'authzlimit', env: { ALLOW_SIGNUP: 'true', RATE_LIMIT_PER_SECOND: '3' } });
  });
  afterAll(() => t.close());

  test("then they count against the token's project, and past the limit the answer is 429", async () => {
    const owner = await signUp(t.api);
    const { token } = await createKey(owner.as, 'sending_access');
    // The per-second window may roll over between calls: retry until three land in one window.
    let statuses: number[] = [];
    for (let attempt = 0; attempt < 5 && statuses.join() !== '403,403,403,429'; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 1_000 - (Date.now() % 1_000) + 20));
      statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await t.api.get('/api-keys', { token })).status);
    }
    expect(statuses).toEqual([403, 403, 403, 429]);
  });
});
