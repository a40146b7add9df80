import { startSendingStack, type SendingStack } from '../../../test/support/sending';
import { until } from '../../../test/support/until';

const message = (subject: string) => ({ from: 'hello@acme.test', to: 'delivered@sandbox.mailroom.test', subject, text: 'Hello' });

describe("the sender's purge of expired Idempotency-Keys", () => {
  let s: SendingStack;
  beforeAll(async () => {
    // The purge runs every RECONCILE_INTERVAL_SECONDS: 1 s here.
    s = await startSendingStack('idempurge', {});
  });
  afterAll(() => s.close());

  const send = (key: string, subject: string) => s.api.post('/emails', message(subject), { headers: { 'idempotency-key': key } });
  const keys = async () =>
    (
      await s.t.gateway.ctx.pool.query<{ key: string }>({ text: 'SELECT key FROM idempotency_keys WHERE project_id = $1 ORDER BY key', values: [s.projectId] })
    ).rows.map((r) => r.key);

  test('when a record passes 24 hours, then the scheduled task deletes it, keeps the newer ones, and the key can be used again', async () => {
    const first = await send('order-1', 'First');
    expect(first.status).toBe(200);
    expect((await send('order-2', 'Second')).status).toBe(200);
    await s.t.gateway.ctx.pool.query({
      text: `UPDATE idempotency_keys SET created_at = now() - interval '24 hours 1 minute' WHERE project_id = $1 AND key = 'order-1'`,
      values: [s.projectId],
    });

    await until(async () => !(await keys()).includes('order-1'), 15_000, 'the expired record to be purged');
    expect(await keys()).toEqual(['order-2']);

    // Another body under the expired key is a new request, remembered from now on.
    const reused = await send('order-1', 'Changed');
    expect(reused.status).toBe(200);
    expect(reused.body.id).not.toBe(first.body.id);
    expect((await send('order-1', 'Changed')).body).toEqual(reused.body);
    expect((await send('order-1', 'First')).status).toBe(409);
    expect(await s.sender.purgeIdempotencyKeys()).toBe(0);
    expect(await keys()).toEqual(['order-1', 'order-2']);
  }, 30_000);
});
