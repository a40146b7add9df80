import { request as httpRequest } from 'node:http';
import { createKey, signUp, startTestGateway, type TestGateway } from '../../../test/support/gateway';
import type { ApiClient } from '../../../test/support/http';
import { rawRequest } from './raw-http';

/**
 * The gateway as an outside checker with generic HTTP clients sees it: concurrency on one
 * Idempotency-Key, headers sent twice or in UTF-8, expectations and framing Node answers on
 * its own, caching, and query strings that no well-behaved SDK sends.
 */

const valid = { from: 'Acme <hello@acme.test>', to: 'alice@example.test', subject: 'Hi', text: 'Hello' };

interface NodeResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/**
 * A request through node:http, which (unlike fetch) sends a header twice when given an array,
 * and writes header strings byte for byte (Latin-1), so UTF-8 bytes can be sent as such.
 */
function nodeRequest(url: string, method: string, path: string, headers: Record<string, string | string[]>, body?: string): Promise<NodeResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const json = (res.headers['content-type'] ?? '').includes('json') && text !== '';
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: json ? JSON.parse(text) : text });
      });
    });
    req.on('error', reject);
    // As a Buffer: a string body is written together with the head, in the body's encoding
    // (UTF-8), which would encode the Latin-1 header bytes a second time.
    req.end(body === undefined ? undefined : Buffer.from(body));
  });
}

/** A header value carrying `text` as UTF-8 bytes, as curl sends non-ASCII. */
const utf8Header = (text: string) => Buffer.from(text, 'utf8').toString('latin1');

const expectContractError = (res: { status: number; body: any }, status: number, name: string) => {
  expect({ status: res.status, name: res.body?.name, statusCode: res.body?.statusCode }).toEqual({ status, name, statusCode: status });
  expect(typeof res.body.message).toBe('string');
};

describe('API probe', () => {
  let t: TestGateway;
  let api: ApiClient;
  let token: string;
  let projectId: string;
  let session: string;
  beforeAll(async () => {
    t = await startTestGateway({ label: 'api-probe', env: { ALLOW_SIGNUP: 'true' } });
    const owner = await signUp(t.api);
    projectId = owner.projectId;
    session = owner.session;
    token = (await createKey(owner.as)).token;
    api = t.api.as({ token });
  });
  afterAll(() => t.close());
  const emailCount = (project = projectId) => t.gateway.ctx.db.email.count({ where: { projectId: project } });
  const send = (key: string | string[], body: unknown = valid, bearer = token) =>
    nodeRequest(t.gateway.url, 'POST', '/emails', { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', 'idempotency-key': key }, JSON.stringify(body));

  describe('idempotency under concurrency', () => {
    test('when 20 identical requests share a key at once, then one email exists and every 200 names it; the rest are 409 concurrent_idempotent_requests', async () => {
      const before = await emailCount();
      const results = await Promise.all(Array.from({ length: 20 }, () => send('probe-same')));
      const ok = results.filter((r) => r.status === 200);
      expect(ok.length).toBeGreaterThanOrEqual(1);
      expect(new Set(ok.map((r) => r.body.id)).size).toBe(1);
      for (const r of results.filter((r) => r.status !== 200)) expectContractError(r, 409, 'concurrent_idempotent_requests');
      expect(await emailCount()).toBe(before + 1);
      // Once the first is committed, a retry is answered the same id.
      const retry = await send('probe-same');
      expect(retry.status).toBe(200);
      expect(retry.body.id).toBe(ok[0]?.body.id);
      expect(await emailCount()).toBe(before + 1);
    });

    test('when 20 different bodies share a key at once, then exactly one is stored and the others are 409', async () => {
      const before = await emailCount();
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => send('probe-diff', { ...valid, subject: `Hi ${i}` })));
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      for (const r of results.filter((r) => r.status !== 200)) {
        expect(r.status).toBe(409);
        expect(['concurrent_idempotent_requests', 'invalid_idempotent_request']).toContain(r.body.name);
      }
      expect(await emailCount()).toBe(before + 1);
    });

    test('when two projects send the same key at once, then each gets an email of its own', async () => {
      const other = await signUp(t.api);
      const otherToken = (await createKey(other.as)).token;
      const [mine, theirs] = await Promise.all([send('probe-shared'), send('probe-shared', valid, otherToken)]);
      expect([mine.status, theirs.status]).toEqual([200, 200]);
      expect(mine.body.id).not.toBe(theirs.body.id);
      expect(await emailCount(other.projectId)).toBe(1);
    });

    test('when the key is 256 multi-byte characters sent as UTF-8, then it is accepted (characters, not bytes), and 257 is refused', async () => {
      const before = await emailCount();
      const ids: string[] = [];
      for (const key of ['é'.repeat(256), '😀'.repeat(256), `${'漢'.repeat(255)}a`]) {
        const first = await send(utf8Header(key));
        expect([first.status, first.body.message]).toEqual([200, undefined]);
        const again = await send(utf8Header(key));
        expect(again.body.id).toBe(first.body.id);
        ids.push(first.body.id);
      }
      expect(await emailCount()).toBe(before + 3);
      for (const key of ['é'.repeat(257), '😀'.repeat(257)]) expectContractError(await send(utf8Header(key)), 400, 'invalid_idempotency_key');
      // fetch sends é as its one Latin-1 byte: the same text, so the same key as its UTF-8 spelling.
      const latin1 = await send('\u00e9'.repeat(256));
      expect(latin1.body.id).toBe(ids[0]);
      expect(await emailCount()).toBe(before + 3);
    });

    test('when the key is only whitespace, then it is empty: 400 invalid_idempotency_key', async () => {
      expectContractError(await send('   '), 400, 'invalid_idempotency_key');
    });

    test('when Idempotency-Key is sent twice, then 400 invalid_idempotency_key and nothing is stored', async () => {
      const before = await emailCount();
      const res = await send(['probe-twice-a', 'probe-twice-b']);
      expectContractError(res, 400, 'invalid_idempotency_key');
      expect(res.body.message).toMatch(/once/);
      expectContractError(await send(['probe-twice-a', 'probe-twice-a']), 400, 'invalid_idempotency_key');
      expect(await emailCount()).toBe(before);
    });
  });

  describe('credentials', () => {
    test('when Authorization is sent twice, then 403 invalid_api_key rather than the first one winning', async () => {
      const other = await signUp(t.api);
      const otherToken = (await createKey(other.as)).token;
      for (const pair of [
        [`Bearer ${token}`, `Bearer ${otherToken}`],
        [`Bearer ${token}`, `Bearer ${token}`],
        ['Bearer mr_nonsense', `Bearer ${token}`],
      ]) {
        const res = await nodeRequest(t.gateway.url, 'GET', '/emails', { authorization: pair });
        expectContractError(res, 403, 'invalid_api_key');
        expect(res.headers['x-request-id']).toBeDefined();
      }
      // One header, in any case and spacing HTTP allows, still works.
      for (const value of [`bearer ${token}`, `Bearer   ${token}  `]) {
        expect((await nodeRequest(t.gateway.url, 'GET', '/emails', { authorization: value })).status).toBe(200);
      }
    });
  });

  describe('caching', () => {
    test('when the API answers, then Cache-Control: no-store, for data, secrets and errors alike', async () => {
      const answers = [
        await api.get('/emails'),
        await api.post('/api-keys', { name: 'cache probe' }),
        await t.api.get('/projects', { session }),
        await t.api.get('/emails'),
        await api.get('/emails/em_01ARZ3NDEKTSV4RRFFQ69G5FAV'),
        await t.api.get('/healthz'),
      ];
      expect(answers.map((r) => r.status)).toEqual([200, 201, 200, 401, 404, 200]);
      for (const res of answers) expect(res.headers.get('cache-control')).toBe('no-store');
    });

    test("when the reference's static assets are served, then they keep their own public caching", async () => {
      const page = await t.api.get('/docs');
      const asset = /src="\/?docs\/([^"]+)"/.exec(page.text)?.[1];
      expect(asset).toBeDefined();
      const res = await t.api.get(`/docs/${asset}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    });
  });

  describe('what Node would answer on its own', () => {
    const host = () => new URL(t.gateway.url).host;
    const body = JSON.stringify(valid);

    test('when Expect names something other than 100-continue, then it is ignored and the request served as JSON (not a bare 417)', async () => {
      const res = await rawRequest(t.gateway.url, [
        `POST /emails HTTP/1.1\r\nHost: ${host()}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
          `Expect: x-probe\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      ]);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['x-request-id']).toBeDefined();
      expect(JSON.parse(res.body).id).toMatch(/^em_/);
    });

    test('when Expect is 100-continue, then the body is asked for and the send answered', async () => {
      const res = await nodeRequest(t.gateway.url, 'POST', '/emails', { authorization: `Bearer ${token}`, 'content-type': 'application/json', expect: '100-continue' }, body);
      expect(res.status).toBe(200);
    });

    test('when Expect is 100-continue and the request is refused before its body (no credentials, a Content-Length over the limit), then the answer comes without inviting the body, and the connection closes', async () => {
      for (const [auth, length, status] of [['', 100, 401], [`Authorization: Bearer ${token}\r\n`, 50_000_000, 413]] as const) {
        const res = await rawRequest(t.gateway.url, [
          `POST /emails HTTP/1.1\r\nHost: ${host()}\r\n${auth}Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${length}\r\n\r\n`,
        ]);
        expect([status, res.status, res.closed]).toEqual([status, status, true]);
        expect(res.body).not.toContain('100 Continue');
        expect(res.closedAfterMs).toBeLessThan(3_000);
      }
    });

    test('when an HTTP/1.1 request has no Host, then 400 invalid_json as JSON with X-Request-Id, and the connection closes', async () => {
      const res = await rawRequest(t.gateway.url, [`GET /emails HTTP/1.1\r\nAuthorization: Bearer ${token}\r\n\r\n`]);
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['x-request-id']).toBeDefined();
      expect(JSON.parse(res.body)).toEqual({ name: 'invalid_json', message: expect.stringMatching(/Host/), statusCode: 400 });
      expect(res.closed).toBe(true);
    });

    test('when an HTTP/1.0 request has no Host, then it is served (Host is optional there)', async () => {
      const res = await rawRequest(t.gateway.url, [`GET /emails HTTP/1.0\r\nAuthorization: Bearer ${token}\r\n\r\n`]);
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body).object).toBe('list');
    });
  });

  describe('query strings', () => {
    test('when a parameter the route takes is repeated, then 422 naming it and saying once; repeated unknown ones stay ignored', async () => {
      for (const query of ['limit=1&limit=2', 'after=em_a&after=em_b', 'status=queued&status=sent']) {
        const res = await api.get(`/emails?${query}`);
        expectContractError(res, 422, 'validation_error');
        expect(res.body.message).toBe(`\`${query.split('=')[0]}\`: must be given once in the query.`);
      }
      expect((await api.get('/emails?utm=a&utm=b')).status).toBe(200);
    });

    test('when limit is not a whole number from 1 to 100, then 422 with the real bounds in the message', async () => {
      for (const limit of ['0', '101', '-1', '1.5', '', 'ten', '99999999999999999999']) {
        const res = await api.get(`/api-keys?limit=${limit}`);
        expectContractError(res, 422, 'validation_error');
        expect(res.body.message).toBe('`limit`: must be a whole number from 1 to 100');
      }
      expect((await api.get('/api-keys?limit=100')).status).toBe(200);
    });

    test('when after is not an id of the list kind, then 422 naming its form; a well-formed id that does not exist still pages', async () => {
      for (const [path, after] of [
        ['/emails', 'garbage'],
        ['/emails', 'zzz'],
        ['/emails', 'key_01KAQ9A1B2C3D4E5F6G7H8J9K0'],
        ['/api-keys', 'em_01KAQ9A1B2C3D4E5F6G7H8J9K0'],
        ['/webhooks', 'wh_short'],
      ] as const) {
        const res = await api.get(`${path}?after=${after}`);
        expectContractError(res, 422, 'validation_error');
        expect(res.body.message).toMatch(/^`after`: must be an id from an earlier page \([a-z]+_ and 26 characters\)$/);
      }
      const past = await api.get('/api-keys?after=key_7ZZZZZZZZZZZZZZZZZZZZZZZZZ');
      expect(past.status).toBe(200);
      expect(past.body.data.length).toBeGreaterThan(0);
      const before = await api.get('/api-keys?after=key_00000000000000000000000000');
      expect(before.status).toBe(200);
      expect(before.body.data).toEqual([]);
    });
  });

  describe('methods and paths', () => {
    test('when a GET endpoint is asked with HEAD, then the same status and headers come without a body', async () => {
      for (const path of ['/emails', '/emails/em_01ARZ3NDEKTSV4RRFFQ69G5FAV', '/healthz']) {
        const get = await nodeRequest(t.gateway.url, 'GET', path, { authorization: `Bearer ${token}` });
        const head = await nodeRequest(t.gateway.url, 'HEAD', path, { authorization: `Bearer ${token}` });
        expect(head.status).toBe(get.status);
        expect(head.headers['content-type']).toBe(get.headers['content-type']);
        expect(head.headers['x-request-id']).toBeDefined();
        expect(head.body).toBe('');
      }
    });

    test('when ids are percent-encoded oddities, too long or of another type, then 404 as contract JSON, never 500', async () => {
      const cases: [string, number, string][] = [
        ['/emails/em_%2F', 404, 'not_found'],
        ['/emails/%ZZ', 404, 'not_found'],
        // A path parameter that cannot be an id names nothing.
        ['/emails/em_%00', 404, 'not_found'],
        [`/emails/em_${'A'.repeat(2000)}`, 404, 'not_found'],
        [`/emails/${'proj_01ARZ3NDEKTSV4RRFFQ69G5FAV'}`, 404, 'not_found'],
        ['/webhooks/em_01ARZ3NDEKTSV4RRFFQ69G5FAV', 404, 'not_found'],
        ['//emails', 404, 'not_found'],
      ];
      for (const [path, status, name] of cases) {
        const res = await nodeRequest(t.gateway.url, 'GET', path, { authorization: `Bearer ${token}` });
        expectContractError(res, status, name);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
      }
    });
  });
});
