import { loadConfig } from '@mailroom/core';
import { deleteWebhook, type Pool, updateWebhook } from '@mailroom/db';
import { type RunningDispatcher, startDispatcher } from '../src/start-dispatcher';
import { capturingLogger, createEndpoint, createProject, type DispatcherTestBed, openTestBed, Receiver, until } from './support';

// WEBHOOK_CONCURRENCY_PER_ENDPOINT's default: the posts one endpoint has in flight at once.
const PER_ENDPOINT = 10;

// The dispatcher claims up to 180 deliveries of an endpoint ahead of posting them (claimAhead);
// a 410, a disable or a delete must stop those too, not only the ones still unclaimed (DESIGN §5).
describe('the webhook dispatcher, when an endpoint stops receiving with deliveries claimed', () => {
  let bed: DispatcherTestBed;
  let pool: Pool;
  let dispatcher: RunningDispatcher;
  const receiver = new Receiver();
  const log = capturingLogger();
  let projectId: string;

  beforeAll(async () => {
    bed = await openTestBed('whstopped', { WEBHOOK_RETRY_SCHEDULE: '1,1', RECONCILE_INTERVAL_SECONDS: '1' });
    pool = bed.pool;
    await receiver.start();
    dispatcher = await startDispatcher(loadConfig(bed.env), { logger: log.logger });
    projectId = await createProject(pool);
  });
  afterAll(async () => {
    await dispatcher.stop();
    await receiver.stop();
    await bed.close();
  });
  afterEach(() => {
    receiver.delayMs = 0;
  });

  const posts = (tag: string) => receiver.requests.filter((r) => r.url.endsWith(`?${tag}`)).length;
  const emit = (type: string, count: number) => bed.emit(projectId, type, count);
  const states = async (webhookId: string) =>
    (
      await pool.query<{ state: string; attempts: number; n: number }>({
        text: 'SELECT state, attempts, count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 GROUP BY state, attempts ORDER BY state::text, attempts',
        values: [webhookId],
      })
    ).rows;
  const settle = () => new Promise((resolve) => setTimeout(resolve, 1_500));

  test('when it answers 410 to a burst, then only the posts already in flight are made and every other delivery stops, failed without an attempt', async () => {
    receiver.answer = (r) => (r.url.endsWith('?gone') ? { status: 410 } : { status: 200 });
    const { id } = await createEndpoint(pool, projectId, { url: `${receiver.url}?gone`, events: ['email.failed'] });
    await emit('email.failed', 100);
    await until(async () => (await states(id)).every((s) => s.state === 'failed') && (await states(id)).length > 0, 15_000, 'every delivery to stop');
    await settle();
    const made = posts('gone');
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThanOrEqual(PER_ENDPOINT);
    expect(await states(id)).toEqual([
      { state: 'failed', attempts: 0, n: 100 - made },
      { state: 'failed', attempts: 1, n: made },
    ]);
    expect((await pool.query({ text: 'SELECT enabled, disabled_reason FROM webhooks WHERE id = $1', values: [id] })).rows[0]).toEqual({ enabled: false, disabled_reason: 'gone' });
  });

  test('when a slow endpoint is disabled, then at most the next round of posts goes out and the rest stop, failed without an attempt', async () => {
    receiver.answer = () => ({ status: 200 });
    receiver.delayMs = 500;
    const { id } = await createEndpoint(pool, projectId, { url: `${receiver.url}?slow`, events: ['email.bounced'] });
    await emit('email.bounced', 100);
    await until(() => posts('slow') >= PER_ENDPOINT, 10_000, 'the first posts');
    expect(await updateWebhook(pool, projectId, id, { enabled: false })).toMatchObject({ webhook: { enabled: false } });
    const atDisable = posts('slow');
    await until(async () => (await states(id)).every((s) => s.state !== 'pending'), 15_000, 'every delivery to stop');
    await settle();
    expect(posts('slow') - atDisable).toBeLessThanOrEqual(2 * PER_ENDPOINT);
    const made = posts('slow');
    expect(await states(id)).toEqual([
      { state: 'failed', attempts: 0, n: 100 - made },
      { state: 'succeeded', attempts: 1, n: made },
    ]);
  });

  test('when a slow endpoint is deleted, then at most the next round of posts goes out', async () => {
    receiver.answer = () => ({ status: 200 });
    receiver.delayMs = 500;
    const { id } = await createEndpoint(pool, projectId, { url: `${receiver.url}?deleted`, events: ['email.opened'] });
    await emit('email.opened', 100);
    await until(() => posts('deleted') >= PER_ENDPOINT, 10_000, 'the first posts');
    expect(await deleteWebhook(pool, projectId, id)).toBe(true);
    const atDelete = posts('deleted');
    // Two more rounds' time: without the stop, claimed deliveries would keep going out.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(posts('deleted') - atDelete).toBeLessThanOrEqual(2 * PER_ENDPOINT);
    expect(posts('deleted')).toBeLessThan(100);
  });
});
