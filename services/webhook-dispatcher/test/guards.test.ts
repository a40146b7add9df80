import { loadConfig, WebhookQueue } from '@mailroom/core';
import { fanOutEvents, type Pool } from '@mailroom/db';
import { createAttemptDeps } from '@mailroom/webhooks';
import { DnsServer } from '../../../test/support/dns-server';
import { TEST_SECRET_KEY } from '../../../test/support/gateway';
import { DeliveryRunner } from '../src/delivery-runner';
import { startDispatcher } from '../src/start-dispatcher';
import { appendTestEvents, capturingLogger, createEndpoint, createProject, type DispatcherTestBed, openTestBed, Receiver, until } from './support';

/** One dispatcher on a test bed of its own, with a project to emit events in. */
async function startSetup(label: string, env: Record<string, string>) {
  const bed = await openTestBed(label, { RECONCILE_INTERVAL_SECONDS: '1', ...env });
  const dispatcher = await startDispatcher(loadConfig(bed.env), { logger: capturingLogger().logger });
  const projectId = await createProject(bed.pool);
  return {
    pool: bed.pool,
    dispatcher,
    projectId,
    emit: (type: string, count = 1) => bed.emit(projectId, type, count),
    async close() {
      await dispatcher.stop();
      await bed.close();
    },
  };
}

const attemptsOf = async (pool: Pool, webhookId: string) =>
  (
    await pool.query<{ success: boolean; response_status: number | null; error: string | null }>({
      text: 'SELECT success, response_status, error FROM webhook_attempts WHERE webhook_id = $1 ORDER BY id',
      values: [webhookId],
    })
  ).rows;

describe('the SSRF guard at delivery time', () => {
  const dns = new DnsServer({ zone: { 'hooks.example.test': { A: ['127.0.0.1'] }, 'public.example.test': { A: ['127.0.0.1'] } } });
  const receiver = new Receiver();
  let setup: Awaited<ReturnType<typeof startSetup>>;

  beforeAll(async () => {
    await dns.start();
    await receiver.start();
    setup = await startSetup('whssrf', { ALLOW_PRIVATE_NETWORKS: 'false', DNS_SERVERS: dns.address, WEBHOOK_RETRY_SCHEDULE: '' });
  });
  afterAll(async () => {
    await setup.close();
    await receiver.stop();
    await dns.stop();
  });

  test('when a host name resolves to loopback through DNS_SERVERS, then the attempt is logged with an error and no connection is made', async () => {
    // Created while the name looked harmless to whoever checked it; it resolves to loopback now.
    const { id } = await createEndpoint(setup.pool, setup.projectId, { url: `http://hooks.example.test:${receiver.port}/hook`, events: ['email.delivered'] });
    await setup.emit('email.delivered');
    await until(async () => (await attemptsOf(setup.pool, id)).length === 1, 10_000, 'the refused attempt');

    const [attempt] = await attemptsOf(setup.pool, id);
    expect(attempt).toMatchObject({ success: false, response_status: null });
    expect(attempt!.error).toMatch(/hooks\.example\.test does not resolve to a public address/);
    expect(dns.queries.some((q) => q.name === 'hooks.example.test' && q.type === 'A')).toBe(true);
    expect(receiver.connections).toBe(0);
  });

  test('when the URL is a loopback IP literal, then it is refused the same way', async () => {
    const { id } = await createEndpoint(setup.pool, setup.projectId, { url: receiver.url, events: ['email.opened'] });
    await setup.emit('email.opened');
    await until(async () => (await attemptsOf(setup.pool, id)).length === 1, 10_000, 'the refused attempt');
    expect((await attemptsOf(setup.pool, id))[0]!.error).toMatch(/address 127\.0\.0\.1 is a private/);
    expect(receiver.connections).toBe(0);
  });
});

describe('an endpoint that never answers', () => {
  const healthy = new Receiver();
  const hanging = new Receiver();
  let setup: Awaited<ReturnType<typeof startSetup>>;

  beforeAll(async () => {
    await Promise.all([healthy.start(), hanging.start()]);
    hanging.answer = () => 'hang';
    setup = await startSetup('whhang', {
      ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_CONCURRENCY_PER_ENDPOINT: '2',
      // Longer than the test: the hanging endpoint holds its posts throughout.
      WEBHOOK_TIMEOUT_SECONDS: '120',
    });
  });
  afterAll(async () => {
    // Closing the hanging receiver first ends the posts it holds.
    await hanging.stop();
    await setup.close();
    await healthy.stop();
  });

  test('when one endpoint hangs, then a healthy endpoint of the same project receives every event while the hanging one holds only its bound', async () => {
    await createEndpoint(setup.pool, setup.projectId, { url: hanging.url, events: ['email.delivered'] });
    await createEndpoint(setup.pool, setup.projectId, { url: healthy.url, events: ['email.delivered'] });
    const ids: string[] = [];
    for (let batch = 0; batch < 4; batch++) ids.push(...(await setup.emit('email.delivered', 50)));

    await until(() => new Set(healthy.requests.map((r) => r.headers['webhook-id'])).size === ids.length, 30_000, 'all 200 events at the healthy endpoint');
    // The hanging endpoint got exactly its bound of posts, all still open; nothing more was sent to it.
    expect(hanging.requests).toHaveLength(2);
    expect(hanging.maxOpen).toBe(2);
    expect(healthy.requests).toHaveLength(ids.length);
    await until(() => setup.dispatcher.runner.active === 2, 5_000, 'the healthy posts to finish');
  });

  test('when events keep coming one at a time (a delivery job each), then the healthy endpoint keeps up: no job holds its slot for the hanging one', async () => {
    // Each event a fan-out of its own, so a delivery job of two deliveries (one per endpoint). A
    // job waiting for the hanging endpoint to drain held one of the process's 8 slots for 5 s:
    // 80 such jobs would take 50 s; the healthy endpoint gets them as they come.
    const before = new Set(healthy.requests.map((r) => r.headers['webhook-id']));
    const ids: string[] = [];
    for (let i = 0; i < 80; i++) {
      ids.push(...(await setup.emit('email.delivered')));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seen = () => healthy.requests.filter((r) => !before.has(r.headers['webhook-id']) && ids.includes(String(r.headers['webhook-id']))).length;
    await until(() => seen() === ids.length, 20_000, 'all 80 events at the healthy endpoint');
    expect(hanging.requests).toHaveLength(2);
  }, 40_000);
});

describe('the process-wide bound on posts', () => {
  const receiver = new Receiver();
  let bed: DispatcherTestBed;
  let pool: Pool;
  let queue: WebhookQueue;

  beforeAll(async () => {
    bed = await openTestBed('whbound');
    pool = bed.pool;
    queue = new WebhookQueue(bed.redis, bed.env.QUEUE_PREFIX as string);
    receiver.delayMs = 20;
    await receiver.start();
  });
  afterAll(async () => {
    await queue.close();
    await receiver.stop();
    await bed.close();
  });

  test('when more endpoints have claimed deliveries than the process may post at once, then every one is posted as others end', async () => {
    const config = loadConfig(bed.env);
    const deps = createAttemptDeps({ config, masterSecret: TEST_SECRET_KEY });
    const runner = new DeliveryRunner({ pool, deps, queue, logger: capturingLogger().logger, perEndpoint: 2, maxInFlight: 3, leaseSeconds: 60, timeoutSeconds: config.webhookTimeoutSeconds, claimAhead: 4 });
    const projectId = await createProject(pool);
    for (let i = 0; i < 5; i++) await createEndpoint(pool, projectId, { url: `${receiver.url}?endpoint=${i}`, events: ['email.delivered'] });
    await appendTestEvents(pool, projectId, Array.from({ length: 6 }, () => ({ type: 'email.delivered' })));
    await until(async () => (await fanOutEvents(pool, 100)).events === 0 && (await pool.query({ text: 'SELECT 1 FROM webhook_deliveries' })).rows.length === 30, 10_000, 'the fan-out');
    const { rows } = await pool.query<{ event_id: string; webhook_id: string }>({ text: 'SELECT event_id, webhook_id FROM webhook_deliveries' });

    await runner.run(rows.map((r) => ({ eventId: r.event_id, webhookId: r.webhook_id })));
    await until(() => receiver.requests.length === 30, 20_000, 'all 30 posts');
    await runner.drain();
    expect(receiver.maxOpen).toBeLessThanOrEqual(3);
    const states = await pool.query<{ state: string; n: string }>({ text: 'SELECT state, count(*) AS n FROM webhook_deliveries GROUP BY state' });
    expect(states.rows).toEqual([{ state: 'succeeded', n: '30' }]);
    await deps.client.close();
  });

  test('when a job settles, then it waits until its endpoint has about two rounds left, at most its bound, and not past a stop', async () => {
    const config = loadConfig(bed.env);
    const deps = createAttemptDeps({ config, masterSecret: TEST_SECRET_KEY });
    const runner = new DeliveryRunner({ pool, deps, queue, logger: capturingLogger().logger, perEndpoint: 1, maxInFlight: 3, leaseSeconds: 60, timeoutSeconds: config.webhookTimeoutSeconds, claimAhead: 2 });
    const projectId = await createProject(pool);
    const { id: endpoint } = await createEndpoint(pool, projectId, { url: `${receiver.url}?settle`, events: ['email.opened'] });
    await appendTestEvents(pool, projectId, Array.from({ length: 12 }, () => ({ type: 'email.opened' })));
    const keysOf = async () =>
      (await pool.query<{ event_id: string }>({ text: 'SELECT event_id FROM webhook_deliveries WHERE webhook_id = $1', values: [endpoint] })).rows.map((r) => ({
        eventId: r.event_id,
        webhookId: endpoint,
      }));
    await until(async () => (await fanOutEvents(pool, 100)).events === 0 && (await keysOf()).length === 12, 10_000, 'the fan-out');
    const keys = await keysOf();
    const posted = () => receiver.requests.filter((r) => r.url.endsWith('?settle')).length;

    // Two rounds of one post each are left (waiting, being claimed or claimed) when it resolves: at least 8 − 2 − 1 (posting) posted.
    await runner.run(keys.slice(0, 8));
    await runner.settle(keys.slice(0, 8), 20_000);
    expect(posted()).toBeGreaterThanOrEqual(5);

    // Bounded: with the receiver slow, a 100 ms bound ends the wait long before the posts do.
    receiver.delayMs = 400;
    await runner.run(keys.slice(8));
    const started = Date.now();
    await runner.settle(keys.slice(8), 100);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(posted()).toBeLessThan(12);

    // A stop ends a wait at once.
    const settling = runner.settle(keys.slice(8), 60_000);
    runner.stopIntake();
    await settling;
    await runner.drain();
    receiver.delayMs = 20;
    await deps.client.close();
  });
});
