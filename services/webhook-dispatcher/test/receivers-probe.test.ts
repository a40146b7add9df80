import { once } from 'node:events';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { type EventQueue, loadConfig } from '@mailroom/core';
import type { Pool } from '@mailroom/db';
import { type RunningDispatcher, startDispatcher } from '../src/start-dispatcher';
import { appendTestEvents, capturingLogger, createEndpoint, createProject, type DispatcherTestBed, openTestBed, until } from './support';

/**
 * A receiver written the way other HTTP stacks answer: each path has its raw response, the
 * connection left as that answer says. Records the `webhook-id` of every request per path.
 */
class RawReceiver {
  readonly ids = new Map<string, string[]>();
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly answers: Record<string, string>) {}

  url(path: string): string {
    if (!this.server) throw new Error('The receiver is not started.');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  async start(): Promise<void> {
    this.server = createServer((socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
      let head = '';
      socket.on('data', (chunk: Buffer) => {
        head += chunk.toString('latin1');
        const end = head.indexOf('\r\n\r\n');
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (end < 0 || head.length < end + 4 + length) return;
        const path = /^POST (\S+) /.exec(head)?.[1] ?? '';
        const id = /\r\nwebhook-id: *(\S+)/i.exec(head)?.[1] ?? '';
        head = '';
        this.ids.set(path, [...(this.ids.get(path) ?? []), id]);
        const answer = this.answers[path] ?? 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n';
        if (answer.startsWith('HTTP/1.0') || /\r\nconnection: close/i.test(answer)) socket.end(answer);
        else socket.write(answer);
      });
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

describe('the webhook dispatcher and receivers built on other HTTP stacks', () => {
  let bed: DispatcherTestBed;
  let pool: Pool;
  let dispatcher: RunningDispatcher;
  let eventQueue: EventQueue;
  let projectId: string;
  const receiver = new RawReceiver({
    // A 204 that names a length: the answer ends at its empty line (RFC 9112 §6.3).
    '/204-with-length': 'HTTP/1.1 204 No Content\r\nContent-Length: 2\r\n\r\n',
    '/http10': 'HTTP/1.0 202 Accepted\r\n\r\nqueued',
    '/close': 'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok',
    '/chunked': 'HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n',
    '/moved': 'HTTP/1.1 308 Permanent Redirect\r\nLocation: http://127.0.0.1:1/elsewhere\r\nContent-Length: 0\r\n\r\n',
    '/timeout': 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n',
    '/too-large': 'HTTP/1.1 413 Content Too Large\r\nConnection: close\r\nContent-Length: 0\r\n\r\n',
  });

  beforeAll(async () => {
    bed = await openTestBed('whrecvprobe', { WEBHOOK_RETRY_SCHEDULE: '1,1', WEBHOOK_TIMEOUT_SECONDS: '2', LEASE_SECONDS: '2', RECONCILE_INTERVAL_SECONDS: '1' });
    ({ pool, eventQueue } = bed);
    await receiver.start();
    dispatcher = await startDispatcher(loadConfig(bed.env), { logger: capturingLogger().logger });
    projectId = await createProject(pool);
  });
  afterAll(async () => {
    await dispatcher.stop();
    await receiver.stop();
    await bed.close();
  });

  const outcome = async (webhookId: string) => {
    const delivery = await pool.query<{ state: string }>({ text: 'SELECT state::text FROM webhook_deliveries WHERE webhook_id = $1', values: [webhookId] });
    const attempts = await pool.query<{ response_status: number | null; success: boolean; error: string | null }>({
      text: 'SELECT response_status, success, error FROM webhook_attempts WHERE webhook_id = $1 ORDER BY id',
      values: [webhookId],
    });
    return { state: delivery.rows[0]?.state, attempts: attempts.rows };
  };

  test('when receivers answer 2xx as HTTP/1.0, with Connection: close, chunked, or a 204 naming a length, then each delivery succeeds at its first attempt', async () => {
    const paths = ['/204-with-length', '/http10', '/close', '/chunked'];
    const endpoints = await Promise.all(paths.map((path) => createEndpoint(pool, projectId, { url: receiver.url(path), events: ['email.delivered'] })));
    const [eventId] = await appendTestEvents(pool, projectId, [{ type: 'email.delivered' }]);
    await eventQueue.notify();
    await until(async () => (await Promise.all(endpoints.map((e) => outcome(e.id)))).every((o) => o.state !== undefined && o.state !== 'pending'), 15_000, 'every delivery settled');
    const results = await Promise.all(endpoints.map(async (e, i) => ({ path: paths[i], ...(await outcome(e.id)) })));
    expect(results).toEqual([
      { path: '/204-with-length', state: 'succeeded', attempts: [{ response_status: 204, success: true, error: null }] },
      { path: '/http10', state: 'succeeded', attempts: [{ response_status: 202, success: true, error: null }] },
      { path: '/close', state: 'succeeded', attempts: [{ response_status: 200, success: true, error: null }] },
      { path: '/chunked', state: 'succeeded', attempts: [{ response_status: 201, success: true, error: null }] },
    ]);
    for (const path of paths) expect(receiver.ids.get(path)).toEqual([eventId]);
  });

  test('when receivers answer 308, 408 or 413, then every attempt of the schedule is a failure under the same webhook-id, and the redirect is not followed', async () => {
    const paths = ['/moved', '/timeout', '/too-large'];
    const endpoints = await Promise.all(paths.map((path) => createEndpoint(pool, projectId, { url: receiver.url(path), events: ['email.bounced'] })));
    const [eventId] = await appendTestEvents(pool, projectId, [{ type: 'email.bounced' }]);
    await eventQueue.notify();
    await until(async () => (await Promise.all(endpoints.map((e) => outcome(e.id)))).every((o) => o.state === 'failed'), 20_000, 'every schedule spent');
    const results = await Promise.all(endpoints.map((e) => outcome(e.id)));
    expect(results.map((r) => r.attempts.map((a) => [a.response_status, a.success]))).toEqual([
      [[308, false], [308, false], [308, false]],
      [[408, false], [408, false], [408, false]],
      [[413, false], [413, false], [413, false]],
    ]);
    expect(results[0]?.attempts[0]?.error).toBe('HTTP 308: redirects are not followed.');
    for (const path of paths) expect(receiver.ids.get(path)).toEqual([eventId, eventId, eventId]);
    expect(receiver.ids.get('/elsewhere')).toBeUndefined();
  });
});
