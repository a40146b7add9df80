import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { createResolver } from '@mailroom/core';
import { RESPONSE_BODY_BYTES, WebhookClient } from './webhook-client';

// Short, so a hanging receiver ends the test quickly; the client takes any number of seconds.
const TIMEOUT_SECONDS = 0.4;

describe('WebhookClient', () => {
  let server: Server;
  let base = '';
  const routes = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>([
    ['/ok', (_req, res) => res.writeHead(204).end()],
    ['/busy', (_req, res) => res.writeHead(429, { 'Retry-After': '120' }).end('slow down')],
    ['/large', (_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('x'.repeat(3 * RESPONSE_BODY_BYTES))],
    // Two-byte characters from an odd offset: the 4 KB cut falls inside one.
    ['/accents', (_req, res) => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`x${'é'.repeat(RESPONSE_BODY_BYTES)}`)],
    ['/hang', () => undefined],
    // A 200 announcing 100,000 bytes that sends 8,000 and then neither ends nor closes.
    [
      '/stream',
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100000' });
        res.write('y'.repeat(8_000));
      },
    ],
    // Headers at once, then a byte every 100 ms: each gap is short, the whole exchange is not.
    [
      '/drip',
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => res.write('.'), 100);
        res.on('close', () => clearInterval(timer));
      },
    ],
  ]);
  const client = new WebhookClient({ timeoutSeconds: TIMEOUT_SECONDS, resolver: createResolver([], 1_000), allowPrivateNetworks: true });

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => routes.get(req.url ?? '')?.(req, res));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await client.close();
    server.closeAllConnections();
    server.close();
  });

  const post = (path: string) => client.post(`${base}${path}`, '{"id":"evt_1"}', { 'content-type': 'application/json' });

  test('when the receiver answers, then its status and body are the result, and Retry-After of a 429 is read in seconds', async () => {
    expect(await post('/ok')).toMatchObject({ status: 204, body: '', error: null, retryAfterSeconds: null });
    expect(await post('/busy')).toMatchObject({ status: 429, body: 'slow down', error: null, retryAfterSeconds: 120 });
  });

  test('when posts start in one turn of the event loop, then their bytes wait in their sockets until its end and then leave (writePerTurn), each answered', async () => {
    // undici's own diagnostics: the socket a request goes on, then the moment its body is handed to it.
    const sockets = new Map<object, Socket>();
    const buffered: number[] = [];
    const onHeaders = (message: unknown) => {
      const { request, socket } = message as { request: object; socket: Socket };
      sockets.set(request, socket);
    };
    const onBodySent = (message: unknown) => {
      const socket = sockets.get((message as { request: object }).request);
      if (socket) buffered.push(socket.writableLength);
    };
    subscribe('undici:client:sendHeaders', onHeaders);
    subscribe('undici:request:bodySent', onBodySent);
    try {
      const results = await Promise.all([post('/ok'), post('/ok'), post('/ok')]);
      expect(results.map((r) => r.status)).toEqual([204, 204, 204]);
    } finally {
      unsubscribe('undici:client:sendHeaders', onHeaders);
      unsubscribe('undici:request:bodySent', onBodySent);
    }
    // Written straight away, a small request on a loopback connection leaves the socket's buffer
    // empty; held for the end of the turn, the whole request is still there.
    expect(buffered).toHaveLength(3);
    for (const bytes of buffered) expect(bytes).toBeGreaterThan('{"id":"evt_1"}'.length);
  });

  test('when the body is larger than 4 KB, then only the first 4 KB are kept', async () => {
    const result = await post('/large');
    expect(result.status).toBe(500);
    expect(result.body).toBe('x'.repeat(RESPONSE_BODY_BYTES));
  });

  test('when the 4 KB kept end inside a UTF-8 character, then that character is left out, not made U+FFFD', async () => {
    const result = await post('/accents');
    expect(result.body).toBe(`x${'é'.repeat((RESPONSE_BODY_BYTES - 2) / 2)}`);
    expect(Buffer.byteLength(result.body ?? '')).toBe(RESPONSE_BODY_BYTES - 1);
  });

  test('when a 2xx body goes past the 4 KB kept, then the status and those 4 KB decide at once: what follows is never read', async () => {
    const result = await post('/stream');
    expect(result).toMatchObject({ status: 200, error: null, body: 'y'.repeat(RESPONSE_BODY_BYTES) });
    expect(result.durationMs).toBeLessThan(TIMEOUT_SECONDS * 1000);
  });

  test('when receivers hang or drip their body, then every exchange ends as a timeout after WEBHOOK_TIMEOUT_SECONDS, not before', async () => {
    const results = await Promise.all([post('/hang'), post('/drip'), post('/hang')]);
    expect(results.map((r) => r.error)).toEqual([
      `No answer within ${TIMEOUT_SECONDS} s (WEBHOOK_TIMEOUT_SECONDS).`,
      // Its head came at once: the log names the answer that did not end.
      `The HTTP 200 response did not end within ${TIMEOUT_SECONDS} s (WEBHOOK_TIMEOUT_SECONDS).`,
      `No answer within ${TIMEOUT_SECONDS} s (WEBHOOK_TIMEOUT_SECONDS).`,
    ]);
    for (const result of results) {
      expect(result).toMatchObject({ status: null, body: null });
      expect(result.durationMs).toBeGreaterThanOrEqual(TIMEOUT_SECONDS * 1000 - 1);
      // Generous for the late timers of a loaded machine; without the deadline /drip never ends.
      expect(result.durationMs).toBeLessThan(TIMEOUT_SECONDS * 1000 + 3_000);
    }
    // The client still posts afterwards.
    expect((await post('/ok')).status).toBe(204);
  });
});

describe('WebhookClient with receivers that bend HTTP/1.1', () => {
  // Raw answers, written as some servers and proxies do, whatever the request says.
  const answers = new Map<string, (socket: Socket) => void>([
    // RFC 9110 §15.2: a 1xx may come before the final answer; here an Early Hints, then 204.
    ['/hints', (s) => s.end('HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n')],
    // HTTP/1.0, the body delimited by the connection's close.
    ['/http10', (s) => s.end('HTTP/1.0 200 OK\r\nConnection: close\r\n\r\nstored')],
    ['/chunked', (s) => s.end('HTTP/1.1 202 Accepted\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n')],
    // The head of a 200, part of its body, then a reset.
    [
      '/cut',
      (s) => {
        s.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial');
        setTimeout(() => s.resetAndDestroy(), 50);
      },
    ],
    ['/continue', (s) => s.end('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n')],
    ['/rfc850', (s) => s.end('HTTP/1.1 503 Service Unavailable\r\nRetry-After: Sunday, 06-Nov-94 08:49:37 GMT\r\nContent-Length: 0\r\n\r\n')],
    // RFC 9112 §6.3: a 204 or 304 ends at its empty line whatever its Content-Length says (RFC
    // 9110 §8.6: a 304 may carry the length its 200 would have had); the connection is kept.
    ['/204-length', (s) => s.write('HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n')],
    ['/204-length-and-bytes', (s) => s.write('HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nhello')],
    ['/304-length', (s) => s.write('HTTP/1.1 304 Not Modified\r\nContent-Length: 1234\r\n\r\n')],
    ['/ok', (s) => s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')],
  ]);
  let server: NetServer;
  let base = '';
  const client = new WebhookClient({ timeoutSeconds: 2, resolver: createResolver([], 1_000), allowPrivateNetworks: true });

  beforeAll(async () => {
    server = createNetServer((socket) => {
      let head = '';
      socket.on('error', () => undefined);
      const onData = (chunk: Buffer) => {
        head += chunk.toString('latin1');
        const path = /^POST (\S+) /.exec(head)?.[1];
        if (!path || !head.includes('\r\n\r\n')) return;
        // The next request on a kept connection is read afresh.
        head = '';
        answers.get(path)?.(socket);
      };
      socket.on('data', onData);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await client.close();
    server.close();
  });

  const post = (path: string) => client.post(`${base}${path}`, '{"id":"evt_1"}', { 'content-type': 'application/json' });

  test('when a 1xx precedes the answer, or the body is close-delimited or chunked, then the final status and body are the result', async () => {
    expect(await post('/hints')).toMatchObject({ status: 204, body: '', error: null });
    expect(await post('/http10')).toMatchObject({ status: 200, body: 'stored', error: null });
    expect(await post('/chunked')).toMatchObject({ status: 202, body: 'abcdef', error: null });
  });

  test('when a response is cut off after its head, then it is a failure that says which status began', async () => {
    expect(await post('/cut')).toMatchObject({ status: null, body: null, error: 'The connection ended during the HTTP 200 response, before its end.' });
  });

  test('when an unasked 100 Continue comes first, then the failure says so rather than a reset', async () => {
    expect(await post('/continue')).toMatchObject({ status: null, error: expect.stringContaining('100 Continue') });
  });

  test('when Retry-After is an obsolete RFC 850 date, then it is read (RFC 9110 §5.6.7), here long past', async () => {
    expect(await post('/rfc850')).toMatchObject({ status: 503, retryAfterSeconds: 0 });
  });

  test('when a 204 carries a Content-Length, then it is a success with an empty body, not a response cut off', async () => {
    expect(await post('/204-length')).toMatchObject({ status: 204, body: '', error: null });
    expect(await post('/204-length-and-bytes')).toMatchObject({ status: 204, body: '', error: null });
    // The stray bytes did not become the next answer.
    expect(await post('/ok')).toMatchObject({ status: 200, body: 'ok', error: null });
  });

  test('when a 304 carries a Content-Length, then it is answered as the 304 it is', async () => {
    expect(await post('/304-length')).toMatchObject({ status: 304, body: '', error: null });
  });
});
