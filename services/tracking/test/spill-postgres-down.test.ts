import { loadConfig, type Redis } from '@mailroom/core';
import { createPool, type Pool } from '@mailroom/db';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { testEnv } from '../../../test/support/gateway';
import { ServiceProcess } from '../../../test/support/service-process';
import { TcpProxy } from '../../../test/support/tcp-proxy';
import { until } from '../../../test/support/until';
import { type RunningTracking, startTracking } from '../src';
import { adminRedis, deleteKeys, engagementOf, metricValue, spilledEvents, spillKey } from './spill-support';
import { get, insertTrackedEmail, tokens } from './support';

/**
 * The tracking process with PostgreSQL gone (its connections through a proxy that is then
 * stopped, so every write is refused) and Redis up: what it answered goes to the Redis spill,
 * and a later process with PostgreSQL writes it, each event once.
 */
describe('the tracking process when PostgreSQL is down and Redis is up', () => {
  let database: TestDatabase;
  let pool: Pool;
  let redis: Redis;
  let proxy: TcpProxy;
  let service: ServiceProcess | null = null;
  let later: RunningTracking | null = null;
  let prefix = '';
  beforeAll(async () => {
    database = await createTestDatabase('trkspill');
    pool = createPool(database.url, 3);
    redis = await adminRedis();
    proxy = await new TcpProxy('127.0.0.1', 5432).start();
  });
  afterEach(async () => {
    if (service) {
      service.kill('SIGKILL');
      await service.waitForExit();
    }
    service = null;
    await later?.stop();
    later = null;
    await deleteKeys(redis, prefix);
    // Back on its port for the next test.
    await proxy.stop();
    await proxy.start();
  });
  afterAll(async () => {
    await proxy.stop();
    redis.disconnect();
    await pool.end();
    await database.drop();
  });

  /** A tracking process whose PostgreSQL is the proxy, with a tracked email; PostgreSQL then goes away. Returns its pixel and link URLs. */
  async function startThenLosePostgres(label: string) {
    const { emailId, recipientId } = await insertTrackedEmail(pool, label);
    const viaProxy = { ...database, url: database.url.replace(':5432/', `:${proxy.port}/`) };
    const env = testEnv(viaProxy, { TRACKING_PORT: '0', LOG_LEVEL: 'info', TRACKING_MIN_CLICK_SECONDS: '0' });
    prefix = env.QUEUE_PREFIX as string;
    const running = await ServiceProcess.start('tracking', env, 'tracking started');
    service = running;
    const port = (JSON.parse(running.output.find((line) => line.includes('tracking started')) as string) as { port: number }).port;
    await proxy.stop();
    const base = `http://127.0.0.1:${port}`;
    return {
      emailId,
      service: running,
      base,
      pixel: `${base}/o/${tokens.sign({ kind: 'open', emailId, recipientId })}`,
      link: (n: number) => `${base}/c/${tokens.sign({ kind: 'click', emailId, recipientId, url: `https://acme.example/page/${n}` })}`,
    };
  }

  /** Opens and clicks fetched in rounds; every answer counted (200 for a pixel, 302 for a link). */
  async function engage(pixel: string, link: (n: number) => string, rounds: number): Promise<{ opens: number; clicks: number }> {
    let opens = 0;
    let clicks = 0;
    for (let round = 0; round < rounds; round++) {
      const statuses = await Promise.all([...Array.from({ length: 10 }, () => get(pixel)), ...Array.from({ length: 5 }, (_, i) => get(link(i)))]);
      opens += statuses.slice(0, 10).filter((s) => s === 200).length;
      clicks += statuses.slice(10).filter((s) => s === 302).length;
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    return { opens, clicks };
  }

  /** A tracking service on the real database and the same deployment (QUEUE_PREFIX), as a replacement pod would start. */
  async function startWithPostgres(): Promise<RunningTracking> {
    later = await startTracking(loadConfig(testEnv(database, { TRACKING_PORT: '0', QUEUE_PREFIX: prefix })), { host: '127.0.0.1', flushIntervalMs: 100, spillIntervalMs: 100 });
    return later;
  }

  test('when it gets SIGTERM, then it spills what it answered to Redis and exits within seconds, and a process with PostgreSQL writes every open and click once', async () => {
    const { emailId, service: running, pixel, link } = await startThenLosePostgres('Spill stop');
    const answered = await engage(pixel, link, 4);
    expect(answered).toEqual({ opens: 40, clicks: 20 });
    const stoppedAt = Date.now();
    running.kill('SIGTERM');
    let deadline: NodeJS.Timeout | undefined;
    const exited = await Promise.race([running.waitForExit(), new Promise((resolve) => (deadline = setTimeout(() => resolve('still running'), 10_000)))]);
    clearTimeout(deadline);
    expect(exited).toBe(0);
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    service = null;
    expect(running.output.some((line) => line.includes('"lost"'))).toBe(false);
    // All of it waits in the spill, none of it claimed.
    expect(await redis.llen(spillKey(prefix))).toBe(60);
    expect(await spilledEvents(redis, prefix)).toBe(60);

    const tracking = await startWithPostgres();
    await until(async () => (await spilledEvents(redis, prefix)) === 0, 20_000, 'the spill to be drained');
    expect(await engagementOf(pool, emailId)).toEqual({ opened: 40, clicked: 20, ids: 60, opens: 40 });
    const metrics = await fetch(`${tracking.url}/metrics`).then((r) => r.text());
    expect(metricValue(metrics, 'mailroom_tracking_events_written_total')).toBe(60);
    expect(metricValue(metrics, 'mailroom_tracking_events_spilled')).toBe(0);
  }, 60_000);

  test('when it is killed after spilling, then a restarted process writes every spilled open and click once', async () => {
    const { emailId, service: running, base, pixel, link } = await startThenLosePostgres('Spill crash');
    const answered = await engage(pixel, link, 3);
    expect(answered).toEqual({ opens: 30, clicks: 15 });
    // Spilled within about a second of the failed write; the process reports it.
    await until(async () => (await spilledEvents(redis, prefix)) === 45, 10_000, 'every answered event to be spilled');
    await until(
      async () => metricValue(await fetch(`${base}/metrics`).then((r) => r.text()), 'mailroom_tracking_events_spilled') === 45,
      10_000,
      'the spill gauge to count them',
    );
    running.kill('SIGKILL');
    await running.waitForExit();
    service = null;

    await startWithPostgres();
    // A chunk the killed process held is taken back when its lease (10 s) runs out.
    await until(async () => (await spilledEvents(redis, prefix)) === 0, 30_000, 'the spill to be drained');
    expect(await engagementOf(pool, emailId)).toEqual({ opened: 30, clicked: 15, ids: 45, opens: 30 });
  }, 60_000);

  test('when Redis is down too, then the events wait in memory as they did before the spill, and are written once PostgreSQL is back', async () => {
    const { emailId, recipientId } = await insertTrackedEmail(pool, 'Both down');
    const redisProxy = await new TcpProxy('127.0.0.1', 6379).start();
    const env = testEnv({ ...database, url: database.url.replace(':5432/', `:${proxy.port}/`) }, { TRACKING_PORT: '0', REDIS_URL: `redis://127.0.0.1:${redisProxy.port}` });
    prefix = env.QUEUE_PREFIX as string;
    later = await startTracking(loadConfig(env), { host: '127.0.0.1', flushIntervalMs: 100, spillIntervalMs: 100 });
    let redisUp = true;
    try {
      await proxy.stop();
      await redisProxy.stop();
      redisUp = false;
      const pixel = `${later.url}/o/${tokens.sign({ kind: 'open', emailId, recipientId })}`;
      const statuses = await Promise.all(Array.from({ length: 20 }, () => get(pixel)));
      expect(statuses.filter((s) => s === 200)).toHaveLength(20);
      // A few failed writes and pushes later, all of them are still held.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(later.buffer.size).toBe(20);
      await proxy.start();
      await until(async () => (await engagementOf(pool, emailId)).opened === 20, 10_000, 'the opens to be written from memory');
      expect(later.buffer.size).toBe(0);
      expect(await engagementOf(pool, emailId)).toEqual({ opened: 20, clicked: 0, ids: 20, opens: 20 });
    } finally {
      // Redis back before stopping, so the service's own connections close normally.
      if (!redisUp) await redisProxy.start();
      await later.stop();
      later = null;
      await redisProxy.stop();
    }
  }, 60_000);
});
