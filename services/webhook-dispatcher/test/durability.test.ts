import type { Pool } from '@mailroom/db';
import { Redis } from 'ioredis';
import { ServiceProcess } from '../../../test/support/service-process';
import { createEndpoint, createProject, CHILD_PROCESS_SETTINGS, type DispatcherTestBed, DISPATCHER_READY, openTestBed, Receiver, until } from './support';


describe('the dispatcher as a process', () => {
  let bed: DispatcherTestBed;
  let pool: Pool;
  let env: Record<string, string>;
  const receiver = new Receiver();
  let projectId: string;

  beforeAll(async () => {
    bed = await openTestBed('whdurable', {
      ...CHILD_PROCESS_SETTINGS,
      WEBHOOK_RETRY_SCHEDULE: '2,2,2,2,2',
    });
    ({ pool, env } = bed);
    await receiver.start();
    projectId = await createProject(pool);
  });
  afterAll(async () => {
    await receiver.stop();
    await bed.close();
  });

  const emit = (type: string, count: number) => bed.emit(projectId, type, count);
  const states = async (webhookId: string) =>
    (await pool.query<{ state: string; leased: boolean }>({ text: 'SELECT state, lease_until > now() AS leased FROM webhook_deliveries WHERE webhook_id = $1', values: [webhookId] })).rows;
  const received = (ids: string[]) => {
    const seen = new Set(receiver.requests.map((r) => r.headers['webhook-id']));
    return ids.filter((id) => seen.has(id)).length;
  };

  test('when the dispatcher is killed with SIGKILL mid-delivery, then after a restart every event is delivered under its own webhook-id', async () => {
    receiver.delayMs = 50;
    const { id } = await createEndpoint(pool, projectId, { url: receiver.url, events: ['email.delivered'] });
    const ids = await emit('email.delivered', 200);
    const first = await ServiceProcess.start('webhook-dispatcher', env, DISPATCHER_READY);
    await until(() => receiver.requests.length >= 30, 20_000, 'the first deliveries');
    first.kill('SIGKILL');
    await first.waitForExit();
    const atKill = await states(id);
    expect(atKill.filter((d) => d.state === 'succeeded').length).toBeLessThan(200);
    // Posts were in flight: their deliveries are still leased by the dead process.
    expect(atKill.filter((d) => d.state === 'pending' && d.leased).length).toBeGreaterThan(0);

    const second = await ServiceProcess.start('webhook-dispatcher', env, DISPATCHER_READY);
    try {
      await until(async () => (await states(id)).filter((d) => d.state === 'succeeded').length === 200, 60_000, 'all 200 deliveries');
    } finally {
      await second.stop();
    }
    expect(received(ids)).toBe(200);
    // Every request carried the id of an event of this test, whichever process sent it.
    expect(receiver.requests.every((r) => ids.includes(r.headers['webhook-id'] as string))).toBe(true);
  }, 120_000);

  test('when Redis is emptied while retries wait, then the reconciler re-enqueues the pending deliveries and they are delivered', async () => {
    receiver.delayMs = 0;
    receiver.answer = () => ({ status: 500 });
    const { id } = await createEndpoint(pool, projectId, { url: receiver.url, events: ['email.bounced'] });
    const ids = await emit('email.bounced', 30);
    const dispatcher = await ServiceProcess.start('webhook-dispatcher', env, DISPATCHER_READY);
    await until(() => received(ids) === 30, 20_000, 'the first failed attempts');
    dispatcher.kill('SIGTERM');
    expect(await dispatcher.waitForExit()).toBe(0);
    expect((await states(id)).every((d) => d.state === 'pending' && !d.leased)).toBe(true);

    const raw = new Redis(env.REDIS_URL!);
    try {
      const keys = await raw.keys(`${env.QUEUE_PREFIX}:*`);
      expect(keys.length).toBeGreaterThan(0);
      await raw.del(...keys);
      expect(await raw.keys(`${env.QUEUE_PREFIX}:*`)).toEqual([]);
    } finally {
      raw.disconnect();
    }
    receiver.answer = () => ({ status: 200 });
    const restarted = await ServiceProcess.start('webhook-dispatcher', env, DISPATCHER_READY);
    try {
      await until(async () => (await states(id)).every((d) => d.state === 'succeeded'), 30_000, 'the reconciler to recover all 30');
    } finally {
      await restarted.stop();
    }
    const attempts = await pool.query<{ success: boolean }>({ text: 'SELECT success FROM webhook_attempts WHERE webhook_id = $1 AND success', values: [id] });
    expect(attempts.rows).toHaveLength(30);
  }, 90_000);
});
