import { once } from 'node:events';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createRedis, type Redis } from '@mailroom/core';
import { createPool, type Pool } from '@mailroom/db';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { testEnv } from '../../../test/support/gateway';
import { ServiceProcess } from '../../../test/support/service-process';
import { until } from '../../../test/support/until';
import { get, insertTrackedEmail, tokens } from './support';

/**
 * A TCP proxy in front of this test's own Redis connections: `pause()` stops passing bytes
 * either way (as `CLIENT PAUSE` would, for this process only), `cut()` drops every connection and
 * refuses new ones, `resume()` undoes either.
 */
class RedisGate {
  private server: Server | null = null;
  private readonly pairs = new Set<[Socket, Socket]>();
  private paused = false;
  port = 0;

  async open(): Promise<this> {
    const server = createServer((client) => {
      const upstream = createConnection({ host: '127.0.0.1', port: 6379 });
      const pair: [Socket, Socket] = [client, upstream];
      this.pairs.add(pair);
      const forward = (from: Socket, to: Socket) => from.on('data', (chunk: Buffer) => (this.paused ? held.push([to, chunk]) : to.write(chunk)));
      const held: [Socket, Buffer][] = [];
      this.held.set(pair, held);
      forward(client, upstream);
      forward(upstream, client);
      for (const s of pair)
        s.on('error', () => undefined).on('close', () => {
          client.destroy();
          upstream.destroy();
          this.pairs.delete(pair);
        });
    });
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  private readonly held = new Map<[Socket, Socket], [Socket, Buffer][]>();

  pause(): void {
    this.paused = true;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const [a, b] of this.pairs) {
      a.destroy();
      b.destroy();
    }
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async resume(): Promise<void> {
    this.paused = false;
    for (const held of this.held.values()) for (const [to, chunk] of held.splice(0)) if (!to.destroyed) to.write(chunk);
    if (!this.server) await this.open();
  }
}

describe('the tracking process when Redis goes away', () => {
  let database: TestDatabase;
  let pool: Pool;
  let gate: RedisGate;
  let redis: Redis;
  let service: ServiceProcess | null = null;
  const prefix = `mrtest-trkredis-${process.pid}`;
  beforeAll(async () => {
    database = await createTestDatabase('trkredis');
    pool = createPool(database.url, 3);
    gate = await new RedisGate().open();
    redis = createRedis('redis://127.0.0.1:6379', 'request');
    await redis.connect();
  });
  afterAll(async () => {
    await service?.stop();
    await gate.cut();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await pool.end();
    await database.drop();
  });

  const opens = async (emailId: string) =>
    (await pool.query<{ n: number }>({ text: "SELECT count(*)::int AS n FROM email_events WHERE email_id = $1 AND type = 'email.opened'", values: [emailId] })).rows[0]?.n;
  // Wake-ups the events queue holds: one job per notice (BullMQ's wait list).
  const notices = async () => (await redis.llen(`${prefix}:events:wait`)) + (await redis.zcard(`${prefix}:events:prioritized`));

  test('when Redis is paused and then cut while opens are written, then each batch is committed once, every request is answered, the process stays up and a later wake-up reaches the events queue', async () => {
    const { emailId, recipientId } = await insertTrackedEmail(pool, 'Redis');
    const env = testEnv(database, { TRACKING_PORT: '0', LOG_LEVEL: 'info', REDIS_URL: `redis://127.0.0.1:${gate.port}`, QUEUE_PREFIX: prefix });
    service = await ServiceProcess.start('tracking', env, 'tracking started');
    const started = service.output.find((line) => line.includes('tracking started')) as string;
    const port = (JSON.parse(started) as { port: number }).port;
    const url = `http://127.0.0.1:${port}/o/${tokens.sign({ kind: 'open', emailId, recipientId })}`;

    expect(await get(url)).toBe(200);
    await until(async () => (await opens(emailId)) === 1 && (await notices()) >= 1, 10_000, 'the first open and its notice');
    const noticesBefore = await notices();

    gate.pause();
    let answered = 1;
    for (let round = 0; round < 4; round++) {
      const statuses = await Promise.all(Array.from({ length: 10 }, () => get(url)));
      answered += statuses.filter((s) => s === 200).length;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    await until(async () => (await opens(emailId)) === answered, 15_000, 'the opens made while Redis is paused');
    await gate.cut();
    for (let round = 0; round < 4; round++) {
      const statuses = await Promise.all(Array.from({ length: 10 }, () => get(url)));
      answered += statuses.filter((s) => s === 200).length;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(answered).toBe(81);
    await until(async () => (await opens(emailId)) === answered, 15_000, 'the opens made while Redis is cut off');
    expect(service.child.exitCode).toBeNull();

    await gate.resume();
    // No more opens: the notices owed for the batches written while Redis was away still arrive.
    await until(async () => (await notices()) > noticesBefore, 15_000, 'a wake-up after Redis is back');
    expect(await opens(emailId)).toBe(answered);
    service.kill('SIGTERM');
    expect(await service.waitForExit()).toBe(0);
    expect(await opens(emailId)).toBe(answered);
    service = null;
  }, 90_000);

  test('when SIGTERM arrives while Redis is cut off, then the buffered opens are written and the process exits cleanly', async () => {
    const { emailId, recipientId } = await insertTrackedEmail(pool, 'Redis stop');
    const env = testEnv(database, { TRACKING_PORT: '0', LOG_LEVEL: 'info', REDIS_URL: `redis://127.0.0.1:${gate.port}`, QUEUE_PREFIX: prefix });
    service = await ServiceProcess.start('tracking', env, 'tracking started');
    const started = service.output.find((line) => line.includes('tracking started')) as string;
    const port = (JSON.parse(started) as { port: number }).port;
    const url = `http://127.0.0.1:${port}/o/${tokens.sign({ kind: 'open', emailId, recipientId })}`;
    await gate.cut();
    const statuses = await Promise.all(Array.from({ length: 25 }, () => get(url)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(25);
    service.kill('SIGTERM');
    expect(await service.waitForExit()).toBe(0);
    expect(await opens(emailId)).toBe(25);
    service = null;
    await gate.resume();
  }, 60_000);
});
