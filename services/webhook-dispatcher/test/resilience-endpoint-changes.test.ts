import { deriveKey, loadConfig } from '@mailroom/core';
import { type Pool, rotateWebhookSecret, updateWebhook } from '@mailroom/db';
import { Webhook } from 'standardwebhooks';
import { TEST_SECRET_KEY } from '../../../test/support/gateway';
import { type RunningDispatcher, startDispatcher } from '../src/start-dispatcher';
import { repeated } from './resilience-support';
import { createEndpoint, createProject, type DispatcherTestBed, openTestBed, type ReceivedRequest, Receiver, until } from './support';

// WEBHOOK_CONCURRENCY_PER_ENDPOINT's default: the posts one endpoint has in flight at once.
const PER_ENDPOINT = 10;

// The dispatcher claims up to 180 deliveries of an endpoint ahead of posting them (claimAhead),
// each with the endpoint's URL and secrets as they were at the claim. A PATCH of the URL or a
// rotation must reach those too, as a disable does (stopped-endpoints.test.ts): at most the next
// round of posts goes out as before.
describe('the webhook dispatcher, when an endpoint changes with deliveries claimed', () => {
  let bed: DispatcherTestBed;
  let pool: Pool;
  let dispatcher: RunningDispatcher;
  const receiver = new Receiver();
  const other = new Receiver();
  let projectId: string;

  beforeAll(async () => {
    bed = await openTestBed('whresendpoint', { WEBHOOK_RETRY_SCHEDULE: '1,1', RECONCILE_INTERVAL_SECONDS: '1' });
    pool = bed.pool;
    await receiver.start();
    await other.start();
    dispatcher = await startDispatcher(loadConfig(bed.env));
    projectId = await createProject(pool);
  });
  afterAll(async () => {
    await dispatcher.stop();
    await receiver.stop();
    await other.stop();
    await bed.close();
  });

  const tagged = (tag: string, at = receiver) => at.requests.filter((r) => r.url.endsWith(`?${tag}`));
  const emit = (type: string, count: number) => bed.emit(projectId, type, count);
  const succeeded = async (webhookId: string) =>
    Number((await pool.query<{ n: string }>({ text: `SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = $1 AND state = 'succeeded'`, values: [webhookId] })).rows[0]!.n);
  const idsOf = (requests: ReceivedRequest[]) => requests.map((r) => r.headers['webhook-id'] as string);

  test('when a slow endpoint\'s URL is changed to another receiver, then at most the next round of posts goes to the old one, and every event arrives once', async () => {
    receiver.delayMs = 500;
    other.delayMs = 500;
    const { id } = await createEndpoint(pool, projectId, { url: `${receiver.url}?moved`, events: ['email.delivered'] });
    const ids = await emit('email.delivered', 100);
    await until(() => tagged('moved').length >= PER_ENDPOINT, 10_000, 'the first posts');
    expect(await updateWebhook(pool, projectId, id, { url: `${other.url}?moved` })).toMatchObject({ webhook: { url: `${other.url}?moved` } });
    const atPatch = tagged('moved').length;
    await until(async () => (await succeeded(id)) === 100, 30_000, 'every delivery');
    expect(tagged('moved').length - atPatch).toBeLessThanOrEqual(2 * PER_ENDPOINT);
    const all = [...idsOf(tagged('moved')), ...idsOf(tagged('moved', other))];
    expect([...repeated(all)]).toEqual([]);
    expect(new Set(all)).toEqual(new Set(ids));
  });

  test('when a slow endpoint\'s secret is rotated, then at most the next round of posts lacks the new secret\'s signature, and the others carry both', async () => {
    receiver.delayMs = 500;
    const { id, secret } = await createEndpoint(pool, projectId, { url: `${receiver.url}?rotated`, events: ['email.opened'] });
    await emit('email.opened', 100);
    await until(() => tagged('rotated').length >= PER_ENDPOINT, 10_000, 'the first posts');
    const rotation = await rotateWebhookSecret(pool, projectId, id, deriveKey(TEST_SECRET_KEY, 'encryption'));
    const atRotation = tagged('rotated').length;
    await until(async () => (await succeeded(id)) === 100, 30_000, 'every delivery');
    const verifies = (key: string, r: ReceivedRequest) => {
      try {
        new Webhook(key).verify(r.body, r.headers as Record<string, string>);
        return true;
      } catch {
        return false;
      }
    };
    const after = tagged('rotated').slice(atRotation);
    expect(after.filter((r) => !verifies(rotation!.secret, r)).length).toBeLessThanOrEqual(2 * PER_ENDPOINT);
    // Within the 24 h after the rotation, the old secret's signature is still there.
    expect(after.every((r) => verifies(secret, r))).toBe(true);
  });
});
