import { Queue } from 'bullmq';
import pino from 'pino';
import { z } from 'zod';
import { PrivateRedis } from '../../../test/chaos/private-servers';
import { until } from '../../../test/support/until';
import { closeWorkers } from './close-workers';
import { openWorker, type QueueDefinition } from './queue-catalog';
import { createRedis } from './redis';

// closeWorkers against a real Redis of its own: a job in hand always runs to its end, and a
// Redis that is gone costs the close its grace, not for ever.

const definition: QueueDefinition<z.ZodObject<{ n: z.ZodNumber }>> = { name: 'close-workers', payload: z.object({ n: z.number() }), jobOptions: {} };

let redis: PrivateRedis;
beforeEach(async () => {
  redis = await PrivateRedis.create();
  await redis.start(false);
});
afterEach(() => redis.remove());

function logLines() {
  const lines: { msg: string }[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line) as { msg: string }) });
  return { logger, lines };
}

async function workerWithJobInHand(prefix: string) {
  const connection = createRedis(redis.url, 'worker');
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const handled: number[] = [];
  let started = false;
  const worker = openWorker(
    definition,
    async ({ n }) => {
      started = true;
      await released;
      handled.push(n);
    },
    { connection, prefix },
  );
  void worker.run();
  const producer = new Queue(definition.name, { connection: { url: redis.url }, prefix });
  await producer.add(definition.name, { n: 1 });
  await producer.close();
  await until(async () => started, 5_000, 'the job is in hand', 20);
  return { worker, connection, release, handled };
}

test('when Redis is killed while a job is in hand, then closeWorkers waits for the job to end, then stops within its grace and says so', async () => {
  const { worker, connection, release, handled } = await workerWithJobInHand('cw-down');
  const { logger, lines } = logLines();
  await redis.kill();
  let done = false;
  const closing = closeWorkers([worker], connection, { logger, graceMs: 300 }).then(() => {
    done = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect({ done, handled }).toEqual({ done: false, handled: [] });
  const released = Date.now();
  release();
  await closing;
  expect(Date.now() - released).toBeLessThan(2_000);
  expect(handled).toEqual([1]);
  expect(lines.map((l) => l.msg)).toEqual([expect.stringMatching(/^redis did not let the workers close/)]);
});

test('when Redis is up, then closeWorkers lets the job end, BullMQ records it and closes, and nothing is logged', async () => {
  const { worker, connection, release, handled } = await workerWithJobInHand('cw-up');
  const { logger, lines } = logLines();
  const closing = closeWorkers([worker], connection, { logger, graceMs: 300 });
  await new Promise((resolve) => setTimeout(resolve, 200));
  release();
  await closing;
  expect(handled).toEqual([1]);
  expect(lines).toEqual([]);
  const check = new Queue(definition.name, { connection: { url: redis.url }, prefix: 'cw-up' });
  expect(await check.getJobCounts('completed', 'active', 'wait')).toEqual({ completed: 1, active: 0, wait: 0 });
  await check.close();
  connection.disconnect();
});
