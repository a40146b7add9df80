import { loadConfig, openQueue, queues, WebhookQueue } from '@mailroom/core';
import { fanOutEvents, type Pool } from '@mailroom/db';
import { createAttemptDeps } from '@mailroom/webhooks';
import { TEST_SECRET_KEY } from '../../../test/support/gateway';
import { DeliveryRunner } from '../src/delivery-runner';
import { appendTestEvents, capturingLogger, createEndpoint, createProject, type DispatcherTestBed, openTestBed, Receiver, until } from './support';

describe('a claimed delivery whose lease no longer covers its post', () => {
  let bed: DispatcherTestBed;
  let pool: Pool;
  let queue: WebhookQueue;
  const receiver = new Receiver();

  beforeAll(async () => {
    bed = await openTestBed('whreslease', { WEBHOOK_TIMEOUT_SECONDS: '1' });
    pool = bed.pool;
    queue = new WebhookQueue(bed.redis, bed.env.QUEUE_PREFIX as string);
    await receiver.start();
  });
  afterAll(async () => {
    await queue.close();
    await receiver.stop();
    await bed.close();
  });

  test('when claimed deliveries wait behind a post that takes the whole timeout, then those the lease no longer covers are handed back unposted, not posted late', async () => {
    const config = loadConfig(bed.env);
    const deps = createAttemptDeps({ config, masterSecret: TEST_SECRET_KEY });
    // A 4 s lease covers a post (1 s) and its commit (2 s) only when the post starts within 1 s of the claim.
    const runner = new DeliveryRunner({ pool, deps, queue, logger: capturingLogger().logger, perEndpoint: 1, maxInFlight: 1, leaseSeconds: 4, timeoutSeconds: 1, claimAhead: 3 });
    receiver.answer = () => 'hang';
    const projectId = await createProject(pool);
    const { id } = await createEndpoint(pool, projectId, { url: receiver.url, events: ['email.delivered'] });
    await appendTestEvents(pool, projectId, Array.from({ length: 3 }, () => ({ type: 'email.delivered' })));
    await until(async () => (await fanOutEvents(pool, 100)).events === 0 && (await pool.query({ text: 'SELECT 1 FROM webhook_deliveries' })).rows.length === 3, 10_000, 'the fan-out');
    const { rows } = await pool.query<{ event_id: string }>({ text: 'SELECT event_id FROM webhook_deliveries' });

    // All three claimed at once; the first post hangs until the timeout, so the next two could start only 1 s after their claim.
    await runner.run(rows.map((r) => ({ eventId: r.event_id, webhookId: id })));
    await until(async () => (await pool.query({ text: 'SELECT 1 FROM webhook_attempts' })).rows.length === 1, 10_000, 'the first attempt recorded');
    await until(
      async () => (await pool.query({ text: `SELECT 1 FROM webhook_deliveries WHERE attempts = 0 AND lease_until IS NULL` })).rows.length === 2,
      10_000,
      'the other two handed back',
    );
    await runner.drain();
    expect(receiver.requests).toHaveLength(1);
    // Given back to the queue, due now, for a fresh claim (beside the first one's retry).
    const deliveries = openQueue(queues.webhookDeliveries, { connection: bed.redis, prefix: bed.env.QUEUE_PREFIX as string });
    const jobs = await deliveries.queue.getJobs(['wait', 'delayed', 'prioritized']);
    await deliveries.close();
    const queued = new Set(jobs.flatMap((j) => (j.data as { deliveries: { eventId: string }[] }).deliveries.map((d) => d.eventId)));
    const handedBack = rows.map((r) => r.event_id).filter((e) => e !== receiver.requests[0]!.headers['webhook-id']);
    expect(handedBack.filter((e) => !queued.has(e))).toEqual([]);
    await deps.client.close();
  });
});
