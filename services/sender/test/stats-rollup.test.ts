import { isFinished, startSendingStack, waitForEmail, type SendingStack } from '../../../test/support/sending';

const at = (local: string) => `${local}@sandbox.mailroom.test`;

describe("the sender's stats rollup", () => {
  let s: SendingStack;
  beforeAll(async () => {
    s = await startSendingStack('statsrollup', {});
  });
  afterAll(() => s.close());

  test('when mail is sent, then GET /stats counts its outcomes at once, and the scheduled rollup takes them over without changing the answer', async () => {
    const ids: string[] = [];
    for (const to of ['delivered', 'bounced', 'complained']) ids.push((await s.api.post('/emails', { from: 'hello@acme.test', to: at(to), subject: 'Hi', text: 'Hello' })).body.id);
    for (const id of ids) await waitForEmail(s.api, id, isFinished);
    const expected = { sent: 3, delivered: 2, bounced: 1, complained: 1, failed: 0, opened: 0 };

    const live = (await s.api.get('/stats?interval=hour')).body;
    expect(live.totals).toMatchObject(expected);
    expect(live.bounceRate).toBeCloseTo(1 / 3);
    expect(live.complaintRate).toBe(0.5);

    // The maintenance job runs every 10 s; until then the counts come from the live tail.
    const pool = s.t.gateway.ctx.pool;
    const rolledUp = async () =>
      (await pool.query<{ n: string }>({ text: 'SELECT coalesce(sum(count), 0)::text AS n FROM stats_hourly WHERE project_id = $1', values: [s.projectId] })).rows[0]?.n;
    for (const deadline = Date.now() + 30_000; (await rolledUp()) !== '7' && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await rolledUp()).toBe('7');
    const after = (await s.api.get('/stats?interval=hour')).body;
    expect([after.totals, after.bounceRate, after.complaintRate]).toEqual([live.totals, live.bounceRate, live.complaintRate]);
  }, 60_000);
});
