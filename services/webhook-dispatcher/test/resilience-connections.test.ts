import { EventQueue } from '@mailroom/core';
import type { Pool } from '@mailroom/db';
import { Redis } from 'ioredis';
import { freePort } from '../../../scripts/lib/free-port';
import { ServiceProcess } from '../../../test/support/service-process';
import { killRedisClientsOf, PausableProxy, repeated, TEST_APPLICATION, terminateBackends } from './resilience-support';
import { appendTestEvents, createEndpoint, createProject, CHILD_PROCESS_SETTINGS, type DispatcherTestBed, DISPATCHER_READY, openTestBed, until } from './support';


describe('the dispatcher when its connections break', () => {
  let bed: DispatcherTestBed;
  let pool: Pool;
  let baseEnv: Record<string, string>;
  let redis: Redis;
  const admin = new Redis('redis://127.0.0.1:6379', { lazyConnect: true });

  beforeAll(async () => {
    bed = await openTestBed(
      'whresconn',
      {
        ...CHILD_PROCESS_SETTINGS,
        WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1',
      },
      `?application_name=${TEST_APPLICATION}`,
    );
    ({ pool, env: baseEnv, redis } = bed);
    await admin.connect();
  });
  afterAll(async () => {
    admin.disconnect();
    await bed.close();
  });

  const receiver = () => bed.receiver();
  const deliveryStates = async (webhookIds: string[]) =>
    (
      await pool.query<{ state: string; n: number }>({
        text: 'SELECT state, count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = ANY($1) GROUP BY state',
        values: [webhookIds],
      })
    ).rows;
  const succeeded = async (webhookIds: string[]) => (await deliveryStates(webhookIds)).find((s) => s.state === 'succeeded')?.n ?? 0;
  const successRows = async (webhookIds: string[]) =>
    (
      await pool.query<{ event_id: string; webhook_id: string }>({
        text: 'SELECT event_id, webhook_id FROM webhook_attempts WHERE webhook_id = ANY($1) AND success',
        values: [webhookIds],
      })
    ).rows.map((r) => `${r.event_id} ${r.webhook_id}`);

  test('when PostgreSQL connections are terminated again and again during 2,000 events, then the process survives and every event reaches every endpoint, recorded once', async () => {
    const projectId = await createProject(pool);
    const env = { ...baseEnv, QUEUE_PREFIX: `${baseEnv.QUEUE_PREFIX}-pg` };
    const eventQueue = new EventQueue(redis, env.QUEUE_PREFIX!);
    const rs = [await receiver(), await receiver(), await receiver()];
    const endpoints = await Promise.all(rs.map((r) => createEndpoint(pool, projectId, { url: r.url, events: ['email.delivered'] })));
    const webhookIds = endpoints.map((e) => e.id);
    const dispatcher = await ServiceProcess.start('webhook-dispatcher', env, DISPATCHER_READY);
    let terminated = 0;
    const ids: string[] = [];
    try {
      for (let batch = 0; batch < 20; batch++) {
        ids.push(...(await appendTestEvents(pool, projectId, Array.from({ length: 100 }, () => ({ type: 'email.delivered' })))));
        await eventQueue.notify();
        // Mid fan-out, claim and recording: the dispatcher is busy with the batches before.
        await new Promise((resolve) => setTimeout(resolve, 30 + (batch % 3) * 40));
        terminated += await terminateBackends(bed.database.name);
      }
      await until(async () => (await succeeded(webhookIds)) === ids.length * 3, 90_000, 'all 6,000 deliveries to succeed', 250);
      expect(dispatcher.child.exitCode).toBeNull();
    } finally {
      await dispatcher.stop();
      await eventQueue.close();
    }
    expect(terminated).toBeGreaterThan(0);
    for (const r of rs) {
      const got = new Set(r.requests.map((q) => q.headers['webhook-id'] as string));
      expect(ids.filter((id) => !got.has(id))).toEqual([]);
      expect(got.size).toBe(ids.length);
    }
    expect(repeated(await successRows(webhookIds)).size).toBe(0);
    expect((await successRows(webhookIds)).length).toBe(6_000);
    // Posts whose outcome was not recorded are posted again (same webhook-id): more on the wire than recorded, never fewer.
    expect(rs.reduce((n, r) => n + r.requests.length, 0)).toBeGreaterThanOrEqual(6_000);
  }, 180_000);

  test('when the dispatcher\'s own Redis connections are killed again and again during 2,000 events, then it recovers by itself and delivers every event', async () => {
    const projectId = await createProject(pool);
    const opsPort = await freePort();
    const env = { ...baseEnv, QUEUE_PREFIX: `${baseEnv.QUEUE_PREFIX}-kill`, OPS_PORT: String(opsPort) };
    const eventQueue = new EventQueue(redis, env.QUEUE_PREFIX!);
    const r = await receiver();
    const { id: webhookId } = await createEndpoint(pool, projectId, { url: r.url, events: ['email.opened'] });
    const dispatcher = await ServiceProcess.start('webhook-dispatcher', env, DISPATCHER_READY);
    let killed = 0;
    const ids: string[] = [];
    try {
      for (let batch = 0; batch < 20; batch++) {
        ids.push(...(await appendTestEvents(pool, projectId, Array.from({ length: 100 }, () => ({ type: 'email.opened' })))));
        await eventQueue.notify();
        await new Promise((resolve) => setTimeout(resolve, 50));
        if (batch % 4 === 0) killed += await killRedisClientsOf(admin, dispatcher.child.pid!);
      }
      await until(async () => (await succeeded([webhookId])) === ids.length, 90_000, 'all 2,000 deliveries to succeed', 250);
      // Events after the last kill still go through: the worker connections came back.
      const later = await appendTestEvents(pool, projectId, Array.from({ length: 10 }, () => ({ type: 'email.opened' })));
      await eventQueue.notify();
      ids.push(...later);
      await until(async () => (await succeeded([webhookId])) === ids.length, 30_000, 'the later deliveries', 250);
      await until(async () => (await fetch(`http://127.0.0.1:${opsPort}/readyz`)).status === 200, 10_000, 'ready again');
      expect(dispatcher.child.exitCode).toBeNull();
    } finally {
      await dispatcher.stop();
      await eventQueue.close();
    }
    expect(killed).toBeGreaterThan(0);
    const got = new Set(r.requests.map((q) => q.headers['webhook-id'] as string));
    expect(ids.filter((id) => !got.has(id))).toEqual([]);
    expect(repeated(await successRows([webhookId])).size).toBe(0);
  }, 180_000);

  test('when Redis stops answering for 3 s mid-traffic, then /readyz says so, and afterwards the dispatcher is ready again and delivers every event', async () => {
    const proxy = await new PausableProxy(6379).start();
    const projectId = await createProject(pool);
    const opsPort = await freePort();
    const env = { ...baseEnv, QUEUE_PREFIX: `${baseEnv.QUEUE_PREFIX}-pause`, OPS_PORT: String(opsPort), REDIS_URL: proxy.url };
    const eventQueue = new EventQueue(redis, env.QUEUE_PREFIX!);
    const r = await receiver();
    const { id: webhookId } = await createEndpoint(pool, projectId, { url: r.url, events: ['email.clicked'] });
    const dispatcher = await ServiceProcess.start('webhook-dispatcher', env, DISPATCHER_READY);
    const ids: string[] = [];
    const readiness: number[] = [];
    try {
      ids.push(...(await appendTestEvents(pool, projectId, Array.from({ length: 500 }, () => ({ type: 'email.clicked' })))));
      await eventQueue.notify();
      await until(() => r.requests.length > 50, 20_000, 'the first deliveries');
      const held = proxy.hold(3_000);
      // Events committed and notified while the dispatcher cannot reach Redis.
      ids.push(...(await appendTestEvents(pool, projectId, Array.from({ length: 500 }, () => ({ type: 'email.clicked' })))));
      await eventQueue.notify();
      await new Promise((resolve) => setTimeout(resolve, 500));
      readiness.push((await fetch(`http://127.0.0.1:${opsPort}/readyz`)).status);
      await held;
      ids.push(...(await appendTestEvents(pool, projectId, Array.from({ length: 500 }, () => ({ type: 'email.clicked' })))));
      await eventQueue.notify();
      await until(async () => (await succeeded([webhookId])) === ids.length, 60_000, 'all 1,500 deliveries to succeed', 250);
      await until(async () => (await fetch(`http://127.0.0.1:${opsPort}/readyz`)).status === 200, 10_000, 'ready again');
      expect(dispatcher.child.exitCode).toBeNull();
    } finally {
      await dispatcher.stop();
      await eventQueue.close();
      await proxy.stop();
    }
    expect(readiness).toEqual([503]);
    const got = new Set(r.requests.map((q) => q.headers['webhook-id'] as string));
    expect(ids.filter((id) => !got.has(id))).toEqual([]);
    expect(repeated(await successRows([webhookId])).size).toBe(0);
  }, 180_000);
});
