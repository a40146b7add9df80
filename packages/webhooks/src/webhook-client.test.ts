import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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
    ['/hang', () => undefined],
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

  test('when the body is larger than 4 KB, then only the first 4 KB are kept', async () => {
    const result = await post('/large');
    expect(result.status).toBe(500);
    expect(result.body).toBe('x'.repeat(RESPONSE_BODY_BYTES));
  });

  test('when receivers hang or drip their body, then every exchange ends as a timeout after WEBHOOK_TIMEOUT_SECONDS, not before', async () => {
    const results = await Promise.all([post('/hang'), post('/drip'), post('/hang')]);
    for (const result of results) {
      expect(result).toMatchObject({ status: null, body: null, error: `No answer within ${TIMEOUT_SECONDS} s (WEBHOOK_TIMEOUT_SECONDS).` });
      expect(result.durationMs).toBeGreaterThanOrEqual(TIMEOUT_SECONDS * 1000 - 1);
      // Generous for the late timers of a loaded machine; without the deadline /drip never ends.
      expect(result.durationMs).toBeLessThan(TIMEOUT_SECONDS * 1000 + 3_000);
    }
    // The client still posts afterwards.
    expect((await post('/ok')).status).toBe(204);
  });
});
