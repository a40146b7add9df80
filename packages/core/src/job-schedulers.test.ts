import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { keepJobSchedulers } from './job-schedulers';
import { openQueue, queues } from './queue-catalog';
import { createRedis } from './redis';

const REDIS_URL = 'redis://127.0.0.1:6379';

test('when Redis forgets the job schedulers (restarted empty) and the connection comes back, then they are upserted again', async () => {
  const prefix = `mrtest-schedulers-${randomBytes(4).toString('hex')}`;
  const redis = createRedis(REDIS_URL, 'request');
  const admin = createRedis(REDIS_URL, 'request');
  await Promise.all([redis.connect(), admin.connect()]);
  const maintenance = openQueue(queues.inboundMaintenance, { connection: redis, prefix });
  try {
    const template = { name: queues.inboundMaintenance.name, data: { task: 'reconcile' }, opts: queues.inboundMaintenance.jobOptions };
    await keepJobSchedulers(maintenance.queue, redis, [{ id: 'reconcile', everyMs: 60_000, template }], pino({ level: 'silent' }));
    expect(await maintenance.queue.getJobSchedulersCount()).toBe(1);

    // All a Redis restarted without persistence holds of them: nothing.
    await admin.del(...(await admin.keys(`${prefix}:*`)));
    expect(await maintenance.queue.getJobSchedulersCount()).toBe(0);
    redis.disconnect(true);

    const deadline = Date.now() + 5_000;
    // Until the connection is back, asking fails fast (a request connection has no offline queue).
    while ((await maintenance.queue.getJobSchedulersCount().catch(() => 0)) === 0) {
      if (Date.now() > deadline) throw new Error('the job scheduler was not upserted again after the reconnect');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await maintenance.queue.getJobSchedulers()).toEqual([expect.objectContaining({ key: 'reconcile', every: 60_000 })]);
  } finally {
    await maintenance.close();
    const keys = await admin.keys(`${prefix}:*`);
    if (keys.length > 0) await admin.del(...keys);
    redis.disconnect();
    admin.disconnect();
  }
});
