import { request } from 'node:http';
import { connect } from 'node:net';
import { Counter } from 'prom-client';
import { createLogger } from '../logger';
import { createServiceRegistry } from './metrics';
import { type OpsServer, startOpsServer } from './ops-server';
import { checkReadiness } from './readiness';

describe('the ops server of a service without an HTTP API', () => {
  let ops: OpsServer;
  let postgresUp = true;
  let migrated = true;
  let shuttingDown = false;

  beforeAll(async () => {
    const registry = createServiceRegistry('inbound-smtp');
    new Counter({ name: 'mailroom_test_total', help: 'A counter.', registers: [registry] }).inc(3);
    ops = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      registry,
      metricsToken: 'scrape-me',
      logger: createLogger({ service: 'test', level: 'silent' }),
      readiness: () =>
        checkReadiness({
          postgres: async () => {
            if (!postgresUp) throw new Error('connect ECONNREFUSED');
          },
          redis: () => Promise.resolve('PONG'),
          migrations: async () => {
            if (!postgresUp) throw new Error('connect ECONNREFUSED');
            return migrated;
          },
          isShuttingDown: () => shuttingDown,
        }),
    });
  });
  afterAll(() => ops.close());

  test('when alive, then /healthz answers ok', async () => {
    const res = await fetch(`${ops.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  test('when the request target is in absolute form (RFC 9112 §3.2.2), then it is answered as its path', async () => {
    const { port } = new URL(ops.url);
    const status = (path: string) =>
      new Promise<number>((resolve, reject) => {
        request({ host: '127.0.0.1', port, path }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
          .on('error', reject)
          .end();
      });
    expect(await status('http://ops.example/healthz')).toBe(200);
    expect(await status('http://ops.example/healthz?probe=1')).toBe(200);
    expect(await status('http://ops.example/elsewhere')).toBe(404);
  });

  test('when a dependency is down, the database lacks a migration or the process is stopping, then /readyz is 503 with the checks, else 200', async () => {
    const ready = await fetch(`${ops.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok', migrations: 'ok', shuttingDown: false } });

    postgresUp = false;
    const down = await fetch(`${ops.url}/readyz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ name: 'service_unavailable', statusCode: 503, checks: { postgres: 'unavailable', redis: 'ok', migrations: 'unavailable' } });
    postgresUp = true;

    migrated = false;
    const behind = await fetch(`${ops.url}/readyz`);
    expect(behind.status).toBe(503);
    expect(await behind.json()).toMatchObject({ name: 'service_unavailable', statusCode: 503, checks: { postgres: 'ok', redis: 'ok', migrations: 'behind' } });
    migrated = true;

    shuttingDown = true;
    const stopping = await fetch(`${ops.url}/readyz`);
    expect(stopping.status).toBe(503);
    expect(await stopping.json()).toMatchObject({ checks: { shuttingDown: true } });
    shuttingDown = false;
  });

  test('when METRICS_TOKEN is set, then /metrics needs it and serves the prefixed process metrics', async () => {
    expect((await fetch(`${ops.url}/metrics`)).status).toBe(401);
    const wrong = await fetch(`${ops.url}/metrics`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toMatchObject({ name: 'invalid_api_key' });
    const res = await fetch(`${ops.url}/metrics`, { headers: { authorization: 'Bearer scrape-me' } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('mailroom_test_total 3');
    expect(text).toContain('mailroom_inbound_smtp_process_cpu_user_seconds_total');
  });

  test('when another path or method is asked, then the answer is contract JSON', async () => {
    const missing = await fetch(`${ops.url}/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ name: 'not_found', statusCode: 404 });
    const post = await fetch(`${ops.url}/healthz`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  test('when Node\'s HTTP parser refuses a request (headers over 16 KB, a malformed request line), then the answer is contract JSON', async () => {
    const { port } = new URL(ops.url);
    const raw = (text: string) =>
      new Promise<string>((resolve, reject) => {
        let answer = '';
        const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
        socket.setEncoding('latin1');
        socket.on('data', (chunk: string) => {
          answer += chunk;
        });
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
      });
    const big = await raw(`GET /healthz HTTP/1.1\r\nHost: ops\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(big.slice(0, 12)).toBe('HTTP/1.1 431');
    expect(JSON.parse(big.slice(big.indexOf('\r\n\r\n') + 4))).toMatchObject({ name: 'headers_too_large', statusCode: 431 });
    const garbled = await raw('GET /healthz HTTP/9\r\n\r\n');
    expect(garbled.slice(0, 12)).toBe('HTTP/1.1 400');
    expect(JSON.parse(garbled.slice(garbled.indexOf('\r\n\r\n') + 4))).toMatchObject({ statusCode: 400 });
  });
});
