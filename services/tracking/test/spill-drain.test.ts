import { loadConfig, type Redis } from '@mailroom/core';
import { createPool, type Pool } from '@mailroom/db';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { testEnv } from '../../../test/support/gateway';
import { ServiceProcess } from '../../../test/support/service-process';
import { TcpProxy } from '../../../test/support/tcp-proxy';
import { until } from '../../../test/support/until';
import { type RunningTracking, startTracking } from '../src';
import { adminRedis, deleteKeys, engagementOf, metricValue, seedSpill, spilledEvents } from './spill-support';
import { insertTrackedEmail } from './support';

/**
 * A TCP proxy in front of Redis that, once it sees a client remove a spill claim (`DEL` of a
 * `…:tracking:spill:claim:…` key), drops that command and every connection and refuses new ones
 * until `reopen()`: the claimed chunk was written, its removal never reached Redis, and the
 * process behind it can no longer renew its lease, as if it had died there.
 */
class ClaimRemovalCutter {
  cut = false;
  private readonly proxy = new TcpProxy('127.0.0.1', 6379, {
    tap: () => ({
      toServer: (chunk) => {
        const text = chunk.toString('latin1').toLowerCase();
        if (this.cut || !text.includes('\r\ndel\r\n') || !text.includes(':tracking:spill:claim:')) return true;
        this.cut = true;
        void this.close();
        return false;
      },
    }),
  });

  get port(): number {
    return this.proxy.port;
  }

  async open(): Promise<this> {
    await this.proxy.start();
    return this;
  }

  /** Takes connections again, on the same port. */
  async reopen(): Promise<void> {
    await this.proxy.start();
  }

  close(): Promise<void> {
    return this.proxy.stop();
  }
}

describe('draining the tracking spill', () => {
  let database: TestDatabase;
  let pool: Pool;
  let redis: Redis;
  const prefixes: string[] = [];
  const running: RunningTracking[] = [];
  const processes: ServiceProcess[] = [];
  let cutter: ClaimRemovalCutter | null = null;
  beforeAll(async () => {
    database = await createTestDatabase('trkdrain');
    pool = createPool(database.url, 3);
    redis = await adminRedis();
  });
  afterAll(async () => {
    for (const p of processes) await p.stop();
    for (const t of running) await t.stop();
    await cutter?.close();
    for (const prefix of prefixes) await deleteKeys(redis, prefix);
    redis.disconnect();
    await pool.end();
    await database.drop();
  });

  const metrics = async (tracking: RunningTracking) => fetch(`${tracking.url}/metrics`).then((r) => r.text());

  test('when a drain is cut off between its commit and the removal of its chunk, then the chunk is drained again by another process and no event is recorded twice', async () => {
    const target = await insertTrackedEmail(pool, 'Drain cut');
    const env = testEnv(database, { TRACKING_PORT: '0' });
    const prefix = env.QUEUE_PREFIX as string;
    prefixes.push(prefix);
    await seedSpill(redis, prefix, target, 50);
    const gate = await new ClaimRemovalCutter().open();
    cutter = gate;
    const options = { host: '127.0.0.1', flushIntervalMs: 100, spillIntervalMs: 100, spillLeaseMs: 1_000 };
    const first = await startTracking(loadConfig({ ...env, REDIS_URL: `redis://127.0.0.1:${gate.port}` }), options);
    running.push(first);
    await until(() => gate.cut, 10_000, 'the first drain to remove its chunk');
    // Committed, and still claimed in Redis: what a crash between the two leaves.
    expect(await engagementOf(pool, target.emailId)).toEqual({ opened: 50, clicked: 0, ids: 50, opens: 50 });
    expect(await redis.llen(`${prefix}:tracking:spill:claim:${first.spill.owner}`)).toBe(50);

    const second = await startTracking(loadConfig(env), options);
    running.push(second);
    // The first process's lease runs out (it cannot renew it), the second takes the chunk back and drains it.
    await until(async () => (await spilledEvents(redis, prefix)) === 0 && (await redis.zcard(`${prefix}:tracking:spill:claims`)) === 0, 15_000, 'the chunk to be drained again');
    expect(await engagementOf(pool, target.emailId)).toEqual({ opened: 50, clicked: 0, ids: 50, opens: 50 });
    expect(metricValue(await metrics(second), 'mailroom_tracking_events_written_total')).toBe(0);

    // The first process, back in touch with Redis, finds nothing left to write.
    await gate.reopen();
    await until(() => first.backends.redis.status === 'ready', 10_000, 'the first process to reconnect to Redis');
    await first.drainer.drain();
    expect(await engagementOf(pool, target.emailId)).toEqual({ opened: 50, clicked: 0, ids: 50, opens: 50 });
    expect(metricValue(await metrics(first), 'mailroom_tracking_events_written_total')).toBe(50);
  }, 60_000);

  test('when two tracking processes drain one spill at once, then each takes chunks of its own and every event is recorded once', async () => {
    const targets = await Promise.all([1, 2, 3].map((i) => insertTrackedEmail(pool, `Two drainers ${i}`)));
    const env = testEnv(database, { TRACKING_PORT: '0', LOG_LEVEL: 'info' });
    const prefix = env.QUEUE_PREFIX as string;
    prefixes.push(prefix);
    const [one, two] = await Promise.all([ServiceProcess.start('tracking', env, 'tracking started'), ServiceProcess.start('tracking', env, 'tracking started')]);
    processes.push(one as ServiceProcess, two as ServiceProcess);
    // Six chunks of 5,000 (the largest write), each email's opens in two of them.
    for (const target of targets) await seedSpill(redis, prefix, target, 10_000);
    await until(async () => (await spilledEvents(redis, prefix)) === 0, 60_000, 'the spill to be drained', 200);
    for (const target of targets) expect(await engagementOf(pool, target.emailId)).toEqual({ opened: 10_000, clicked: 0, ids: 10_000, opens: 10_000 });
    // What each process drained, from its log: the chunks add up to the spill, none taken twice.
    const drained = [one, two].map((p) =>
      (p as ServiceProcess).output
        .filter((line) => line.includes('spilled engagement events written'))
        .map((line) => (JSON.parse(line) as { events: number }).events),
    );
    expect(drained.flat().reduce((a, b) => a + b, 0)).toBe(30_000);
    expect(drained.every((chunks) => chunks.length > 0)).toBe(true);
  }, 90_000);
});
