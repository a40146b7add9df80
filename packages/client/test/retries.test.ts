import { setTimeout as delay } from 'node:timers/promises';
import { signUp, createKey, startTestGateway, type TestGateway } from '../../../test/support/gateway';
import { TcpProxy } from '../../../test/support/tcp-proxy';
import { Mailroom, MailroomConnectionError, MailroomError, MailroomTimeoutError } from '../src/index';
import { rejectionOf } from './support/catch-error';
import { recordingFetch } from './support/recording-fetch';
import { answerError, answerJson, ScriptedServer } from './support/scripted-server';

/**
 * Retries: only safe requests (reads, and sends, which carry an idempotency key) are tried
 * again, after a 429, a 503 or a network failure, honouring Retry-After; everything else fails
 * at once, as its own error class.
 */

const send = { from: 'hello@acme.example', to: 'delivered@sandbox.mailroom.test', text: 'Hi' };

describe('against a real gateway behind a proxy that drops the first response', () => {
  let t: TestGateway;
  let apiToken: string;
  let direct: Mailroom;
  let proxy: TcpProxy;
  let proxyUrl: string;
  beforeAll(async () => {
    t = await startTestGateway({ label: 'client-retries' });
    const owner = await signUp(t.api);
    apiToken = (await createKey(owner.as)).token;
    direct = new Mailroom({ baseUrl: t.gateway.url, apiToken });
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    const { port } = new URL(t.gateway.url);
    proxy = await new TcpProxy('127.0.0.1', Number(port), { dropResponses: 1 }).start();
    proxyUrl = `http://127.0.0.1:${proxy.port}`;
  });
  afterEach(() => proxy.stop());

  const sentWithSubject = async (subject: string) => (await direct.emails.list({ limit: 100 }).toArray()).filter((e) => e.subject === subject);

  test('when a send loses its response, then the client retries with its generated idempotency key and the email is sent once', async () => {
    const { fetch, calls } = recordingFetch();
    const client = new Mailroom({ baseUrl: proxyUrl, apiToken, fetch });
    const { id } = await client.emails.send({ ...send, subject: 'dropped once' });

    expect(proxy.dropped).toBe(1);
    expect(calls).toHaveLength(2);
    const [first, second] = calls.map((c) => c.headers.get('idempotency-key'));
    expect(first).toMatch(/^[0-9a-f]{32}$/);
    expect(second).toBe(first);
    expect((await sentWithSubject('dropped once')).map((e) => e.id)).toEqual([id]);
  });

  test('when retries are off, then the lost response is a MailroomConnectionError, though the email was accepted: what the retry above saves', async () => {
    const client = new Mailroom({ baseUrl: proxyUrl, apiToken, maxRetries: 0 });
    const error = await rejectionOf(client.emails.send({ ...send, subject: 'dropped, no retry' }));
    expect(error).toBeInstanceOf(MailroomConnectionError);
    expect(error).not.toBeInstanceOf(MailroomError);
    expect(error.cause).toBeDefined();
    expect(proxy.connections).toBe(1);
    expect(await sentWithSubject('dropped, no retry')).toHaveLength(1);
  });

  test('when the caller gives the idempotency key, then the retry and a later repeat carry it and answer the one email', async () => {
    const client = new Mailroom({ baseUrl: proxyUrl, apiToken });
    const key = `order-${Date.now()}`;
    const { id } = await client.emails.send({ ...send, subject: 'own key' }, { idempotencyKey: key });
    expect(proxy.dropped).toBe(1);
    expect((await direct.emails.send({ ...send, subject: 'own key' }, { idempotencyKey: key })).id).toBe(id);
    expect((await sentWithSubject('own key')).map((e) => e.id)).toEqual([id]);
  });

  test('when a request that is not idempotent (creating a route) loses its response, then it is not retried', async () => {
    const client = new Mailroom({ baseUrl: proxyUrl, apiToken, maxRetries: 3 });
    expect(await rejectionOf(client.routes.create({ match: 'once@acme.test' }))).toBeInstanceOf(MailroomConnectionError);
    expect(proxy.connections).toBe(1);
    // It was created: a retry would have been a 409 for an email address already routed.
    expect((await direct.routes.list()).data.map((r) => r.match)).toEqual(['once@acme.test']);
  });
});

describe('against a real gateway allowing one request per second', () => {
  let t: TestGateway;
  let apiToken: string;
  beforeAll(async () => {
    t = await startTestGateway({ label: 'client-rate', env: { RATE_LIMIT_PER_SECOND: '1' } });
    const owner = await signUp(t.api);
    apiToken = (await createKey(owner.as)).token;
  });
  afterAll(() => t.close());
  // Each test starts in a fresh window (they last a second).
  beforeEach(() => delay(1_100));

  test('when retries are off, then the second request of a window is rate_limit_exceeded with Retry-After', async () => {
    const client = new Mailroom({ baseUrl: t.gateway.url, apiToken, maxRetries: 0 });
    const results = await Promise.allSettled([client.emails.list(), client.emails.list()]);
    const rejected = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toBeInstanceOf(MailroomError);
    expect(rejected[0]).toMatchObject({ name: 'rate_limit_exceeded', statusCode: 429, retryAfterSeconds: 1 });
  });

  test('when retries are on, then a read refused with 429 is tried again after Retry-After and succeeds', async () => {
    const { fetch, calls } = recordingFetch();
    const client = new Mailroom({ baseUrl: t.gateway.url, apiToken, fetch });
    const pages = await Promise.all([client.emails.list(), client.emails.list()]);
    expect(pages.map((p) => p.object)).toEqual(['list', 'list']);
    expect(calls.map((c) => c.status).sort()).toEqual([200, 200, 429]);
  });

  test('when a keyed send is refused with 429, then it is retried with the same key; creating a route is not', async () => {
    const { fetch, calls } = recordingFetch();
    const client = new Mailroom({ baseUrl: t.gateway.url, apiToken, fetch });
    await client.emails.list();
    const { id } = await client.emails.send({ ...send, subject: 'after a 429' });
    expect(id).toMatch(/^em_/);
    const sends = calls.filter((c) => c.method === 'POST');
    expect(sends.map((c) => c.status)).toEqual([429, 200]);
    expect(sends[1]!.headers.get('idempotency-key')).toBe(sends[0]!.headers.get('idempotency-key'));

    await delay(1_100);
    await client.emails.list();
    const error = await rejectionOf(client.routes.create({ match: 'limited@acme.test' }));
    expect(error).toMatchObject({ name: 'rate_limit_exceeded' });
    expect(calls.filter((c) => c.url.pathname === '/routes')).toHaveLength(1);
  });
});

describe('against a scripted server', () => {
  let server: ScriptedServer;
  afterEach(() => server.stop());
  const client = (options: { maxRetries?: number; timeoutMs?: number } = {}) => new Mailroom({ baseUrl: server.url, apiToken: 'mr_test', ...options });

  test('when a read meets 503 twice, then it is tried a third time and answers', async () => {
    server = await new ScriptedServer((n, _req, res) => (n < 3 ? answerError(res, 503, 'service_unavailable', { 'retry-after': '0' }) : answerJson(res, { object: 'route', id: 'rt_1' }))).start();
    expect(await client().routes.get('rt_1')).toEqual({ object: 'route', id: 'rt_1' });
    expect(server.requests).toHaveLength(3);
  });

  test('when retries run out, then the last error is thrown with its request id', async () => {
    server = await new ScriptedServer((_n, _req, res) => answerError(res, 503, 'service_unavailable', { 'retry-after': '0' })).start();
    const error = await rejectionOf(client({ maxRetries: 1 }).routes.get('rt_1'));
    expect(error).toMatchObject({ name: 'service_unavailable', statusCode: 503, requestId: 'req-503' });
    expect(server.requests).toHaveLength(2);
  });

  test('when a write without an idempotency key meets 503, then it is not retried', async () => {
    server = await new ScriptedServer((_n, _req, res) => answerError(res, 503, 'service_unavailable')).start();
    expect(await rejectionOf(client().routes.create({ match: 'a@acme.test' }))).toMatchObject({ name: 'service_unavailable' });
    expect(server.requests).toHaveLength(1);
  });

  test('when Retry-After asks for longer than a minute, then the error is thrown instead of waiting', async () => {
    server = await new ScriptedServer((_n, _req, res) => answerError(res, 429, 'rate_limit_exceeded', { 'retry-after': '120' })).start();
    expect(await rejectionOf(client().emails.list())).toMatchObject({ name: 'rate_limit_exceeded', retryAfterSeconds: 120 });
    expect(server.requests).toHaveLength(1);
  });

  test('when a send is still being processed under its key (409 concurrent), then it is retried until its outcome', async () => {
    server = await new ScriptedServer((n, _req, res) => (n === 1 ? answerError(res, 409, 'concurrent_idempotent_requests') : answerJson(res, { id: 'em_1' }))).start();
    expect(await client().emails.send({ ...send, subject: 's' })).toEqual({ id: 'em_1' });
    expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual([expect.any(String), server.requests[0]!.headers['idempotency-key']]);
  });

  test('when retries are off, then sends carry no generated idempotency key', async () => {
    server = await new ScriptedServer((_n, _req, res) => answerJson(res, { id: 'em_1' })).start();
    await client({ maxRetries: 0 }).emails.send({ ...send, subject: 's' });
    expect(server.requests[0]!.headers['idempotency-key']).toBeUndefined();
  });

  test('when nothing answers, then each attempt times out and the call throws MailroomTimeoutError', async () => {
    server = await new ScriptedServer(() => undefined).start();
    const error = await rejectionOf(client({ timeoutMs: 200, maxRetries: 1 }).emails.list());
    expect(error).toBeInstanceOf(MailroomTimeoutError);
    expect(error).toMatchObject({ timeoutMs: 200 });
    expect(server.requests).toHaveLength(2);
  });

  test('when connections are reset, then reads are retried and then throw MailroomConnectionError', async () => {
    server = await new ScriptedServer((_n, req) => req.socket.destroy()).start();
    const error = await rejectionOf(client({ maxRetries: 2 }).emails.list());
    expect(error).toBeInstanceOf(MailroomConnectionError);
    expect(error.message).toContain(server.url);
    expect(server.requests).toHaveLength(3);
  });

  test('when the caller aborts, then the call rejects with the signal reason, during a request or a wait between retries', async () => {
    server = await new ScriptedServer(() => undefined).start();
    const during = new AbortController();
    const pending = client().emails.list({}, { signal: during.signal });
    while (server.requests.length === 0) await delay(10);
    during.abort();
    expect(await rejectionOf(pending)).toMatchObject({ name: 'AbortError' });
    await server.stop();

    server = await new ScriptedServer((_n, _req, res) => answerError(res, 503, 'service_unavailable', { 'retry-after': '30' })).start();
    const waiting = new AbortController();
    const retrying = client().emails.list({}, { signal: waiting.signal });
    while (server.requests.length === 0) await delay(10);
    waiting.abort(new Error('user gave up'));
    expect(await rejectionOf(retrying)).toMatchObject({ message: 'user gave up' });
    expect(server.requests).toHaveLength(1);
  });

  test('when a 2xx body is not JSON, then it is unexpected_response, not a connection error', async () => {
    server = await new ScriptedServer((_n, _req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'x-request-id': 'req-html' });
      res.end('<html>Welcome to the captive portal</html>');
    }).start();
    const error = await rejectionOf(client().routes.get('rt_1'));
    expect(error).toMatchObject({ name: 'unexpected_response', statusCode: 200, requestId: 'req-html' });
    expect(error.message).toMatch(/not JSON/);
  });

  test('when a write other than a send carries an idempotency key, then it is still tried once (the gateway keeps keys for sends only)', async () => {
    server = await new ScriptedServer((_n, _req, res) => answerError(res, 503, 'service_unavailable', { 'retry-after': '0' })).start();
    expect(await rejectionOf(client().routes.create({ match: 'a@acme.test' }, { idempotencyKey: 'k1' }))).toMatchObject({ name: 'service_unavailable' });
    expect(server.requests).toHaveLength(1);
  });

  test('when the answer is not Mailroom error JSON (a proxy\'s 500), then it is unexpected_response with the status, not retried', async () => {
    server = await new ScriptedServer((_n, _req, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end('<html>Internal error</html>');
    }).start();
    const error = await rejectionOf(client().emails.list());
    expect(error).toMatchObject({ name: 'unexpected_response', statusCode: 500, requestId: null });
    expect(error.message).toContain('Internal error');
    expect(server.requests).toHaveLength(1);
  });

  test('when a proxy in front of the gateway answers 502 or 504, then a read and a keyed send are tried again; creating a route is not', async () => {
    server = await new ScriptedServer((n, req, res) => {
      if (n % 2 === 1) {
        res.writeHead(n % 4 === 1 ? 502 : 504, { 'content-type': 'text/html' });
        res.end('<html>Bad gateway</html>');
      } else if (req.url?.startsWith('/emails') && req.method === 'POST') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'em_1' }));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [], hasMore: false }));
      }
    }).start();
    expect((await client().emails.list()).data).toEqual([]);
    expect((await client().emails.send({ from: 'a@acme.test', to: 'b@example.test', subject: 's', text: 't' })).id).toBe('em_1');
    expect(server.requests).toHaveLength(4);
    expect(new Set(server.requests.slice(2).map((r) => r.headers['idempotency-key'])).size).toBe(1);
    const created = await rejectionOf(client().routes.create({ match: 'a@acme.test' }));
    expect(created).toMatchObject({ name: 'unexpected_response', statusCode: 502 });
    expect(server.requests).toHaveLength(5);
  });
});
