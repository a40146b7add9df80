import { createKey, signUp, startTestGateway, type TestGateway } from '../../../test/support/gateway';
import { rawRequest } from './raw-http';

const errorBody = (name: string, statusCode: number) => ({ name, message: expect.any(String), statusCode });

describe('HTTP errors are always the contract JSON', () => {
  let t: TestGateway;
  let token: string;
  beforeAll(async () => {
    t = await startTestGateway({ label: 'httperrors' });
    const owner = await signUp(t.api);
    token = (await createKey(owner.as)).token;
  });
  afterAll(() => t.close());

  test('when the body is malformed JSON, then 400 invalid_json', async () => {
    for (const rawBody of ['{"name": ', 'name=x', '']) {
      const res = await t.api.request('POST', '/api-keys', { token, rawBody, headers: { 'content-type': 'application/json' } });
      if (rawBody === '') {
        // An empty body is an empty object: the missing field is named.
        expect(res.body).toEqual(errorBody('missing_required_field', 422));
      } else {
        expect(res.status).toBe(400);
        expect(res.body).toEqual(errorBody('invalid_json', 400));
      }
    }
  });

  test('when the body is over 1 MB, then 413 payload_too_large and nothing is stored', async () => {
    const res = await t.api.post('/api-keys', { name: 'x', padding: 'a'.repeat(1_100_000) }, { token });
    expect(res.status).toBe(413);
    expect(res.body).toEqual(errorBody('payload_too_large', 413));
    expect((await t.api.get('/api-keys', { token })).body.data).toHaveLength(1);
  });

  test('when an endpoint that takes no body is sent one over 1 MB, then 413 and nothing is done; a small one is ignored', async () => {
    const before = (await t.api.get('/api-keys', { token })).body.data.map((k: { id: string }) => k.id);
    const key = (await t.api.post('/api-keys', { name: 'to revoke' }, { token })).body.id;
    const big = await t.api.request('DELETE', `/api-keys/${key}`, { token, rawBody: 'x'.repeat(1_100_000), headers: { 'content-type': 'text/plain' } });
    expect([big.status, big.body]).toEqual([413, errorBody('payload_too_large', 413)]);
    expect((await t.api.get('/api-keys', { token })).body.data.map((k: { id: string }) => k.id)).toEqual([key, ...before]);
    // Stray bytes, or the `{}` many clients send, change nothing.
    const small = await t.api.request('DELETE', `/api-keys/${key}`, { token, rawBody: 'not json', headers: { 'content-type': 'text/plain' } });
    expect([small.status, small.body]).toEqual([200, { object: 'api_key', id: key, deleted: true }]);
  });

  test('when the path is unknown, then 404 not_found as JSON', async () => {
    for (const path of ['/nope', '/projects/x/y/z', '/%E0%A4%A', '/api-keys/%ZZ']) {
      const res = await t.api.get(path, { token });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(res.body).toEqual(errorBody('not_found', 404));
      // No error may be cached, those of paths no route took included.
      expect([path, res.headers.get('cache-control')]).toEqual([path, 'no-store']);
    }
  });

  test('when a client sends CONNECT (this is no proxy) or an Expect other than 100-continue, then 405 as JSON, and the request served as if it had none', async () => {
    const connectRes = await rawRequest(t.gateway.url, ['CONNECT example.test:443 HTTP/1.1\r\nHost: example.test:443\r\n\r\n']);
    expect(connectRes).toMatchObject({ status: 405, closed: true });
    expect(connectRes.headers).toMatchObject({ 'content-type': expect.stringContaining('application/json'), 'cache-control': 'no-store', allow: expect.stringContaining('GET') });
    expect(JSON.parse(connectRes.body)).toEqual(errorBody('method_not_allowed', 405));
    const expecting = await rawRequest(t.gateway.url, ['GET /healthz HTTP/1.1\r\nHost: t\r\nExpect: something-else\r\nConnection: close\r\n\r\n']);
    expect(expecting.status).toBe(200);
    // What Node's parser refuses carries no-store as well.
    const huge = await rawRequest(t.gateway.url, [`GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    expect(huge).toMatchObject({ status: 431, headers: { 'cache-control': 'no-store' } });
  });

  test('when the method is wrong, then 405 method_not_allowed with Allow', async () => {
    const res = await t.api.request('PUT', '/projects', { token, body: {} });
    expect(res.status).toBe(405);
    expect(res.body).toEqual(errorBody('method_not_allowed', 405));
    expect(res.headers.get('allow')).toBe('POST, GET, HEAD');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  test('when a path named by a route is asked with another method, then it is that path\'s 405, not a parameter route\'s answer', async () => {
    for (const [method, path, allow] of [
      ['GET', '/emails/batch', 'POST'],
      ['DELETE', '/emails/batch', 'POST'],
      ['PATCH', '/emails/received', 'GET, HEAD'],
      ['POST', '/dashboard', 'GET, HEAD'],
      ['DELETE', '/dashboard/emails', 'GET, HEAD'],
    ] as const) {
      const res = await t.api.request(method, path, { token, body: method === 'GET' ? undefined : {} });
      expect([method, path, res.status, res.headers.get('allow'), res.body]).toEqual([method, path, 405, allow, errorBody('method_not_allowed', 405)]);
    }
    // The parameter routes still answer their own paths.
    expect((await t.api.get('/emails/em_01JZZZZZZZZZZZZZZZZZZZZZZZ', { token })).status).toBe(404);
    expect((await t.api.get('/emails/received', { token })).status).toBe(200);
    expect((await t.api.get('/EMAILS/received/', { token })).status).toBe(200);
  });

  test('when a query carries operator-like keys, then they are ignored rather than interpreted', async () => {
    const res = await t.api.get('/api-keys?after[$gt]=x&limit[$ne]=1', { token });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
  });

  test('when hostile input arrives, then no answer is HTML or a stack trace', async () => {
    const probes = [
      t.api.request('POST', '/api-keys', { token, rawBody: '{"name":"x"}', headers: { 'content-type': 'application/json; charset=klingon' } }),
      t.api.request('POST', '/api-keys', { token, rawBody: '{"name":"x"}', headers: { 'content-type': 'application/json', 'content-encoding': 'br0ken' } }),
      t.api.request('POST', '/api-keys', { token, rawBody: '{"__proto__": {"admin": true}, "name": 5}' }),
      t.api.get('/api-keys?limit=1&limit=2', { token }),
      t.api.get(`/projects/${'x'.repeat(5000)}`, { token }),
    ];
    for (const res of await Promise.all(probes)) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(res.text).not.toMatch(/<html|at .*\.ts:\d+/i);
      expect(Object.keys(res.body).sort()).toEqual(['message', 'name', 'statusCode']);
    }
  });
});

describe('per-project rate limiting', () => {
  let t: TestGateway;
  let token: string;
  beforeAll(async () => {
    t = await startTestGateway({ label: 'ratelimit', env: { RATE_LIMIT_PER_SECOND: '5' } });
    const owner = await signUp(t.api);
    token = (await createKey(owner.as)).token;
    await new Promise((resolve) => setTimeout(resolve, 1100));
  });
  afterAll(() => t.close());

  test('when a project sends too many requests, then 429 rate_limit_exceeded with ratelimit headers', async () => {
    const results = await Promise.all(Array.from({ length: 12 }, () => t.api.get('/api-keys', { token })));
    const limited = results.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(results.filter((r) => r.status === 200).length).toBeLessThanOrEqual(5);
    const res = limited[0]!;
    expect(res.body).toEqual(errorBody('rate_limit_exceeded', 429));
    expect(res.headers.get('ratelimit-limit')).toBe('5');
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    // Number(null) is 0: the headers must be present, whole seconds, before their values count.
    expect(res.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
    expect(Number(res.headers.get('ratelimit-reset'))).toBeLessThanOrEqual(1);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const ok = results.find((r) => r.status === 200)!;
    expect(ok.headers.get('ratelimit-limit')).toBe('5');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await t.api.get('/api-keys', { token })).status).toBe(200);
  });
});
