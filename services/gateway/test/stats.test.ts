import type { WebhookEventType } from '@mailroom/core';
import { appendEvents, createPool, inTransaction, type NewEvent, type Pool, rollUpAllStats, rollUpStats, STATS_CONSUMER } from '@mailroom/db';
import { createKey, signUp, startTestGateway, type TestGateway } from '../../../test/support/gateway';
import type { ApiClient } from '../../../test/support/http';

/**
 * GET /stats against a real database: events appended through the outbox's own writer at
 * chosen times, in two projects, counted per bucket before and after the rollup runs.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ZERO = { sent: 0, delivered: 0, deliveryDelayed: 0, bounced: 0, complained: 0, failed: 0, suppressed: 0, opened: 0, clicked: 0, received: 0 };

interface Project {
  id: string;
  api: ApiClient;
  emailId: string;
}

describe('GET /stats', () => {
  let t: TestGateway;
  let pool: Pool;
  let a: Project;
  let b: Project;

  /** Sends one email in the project (never delivered: no sender runs), so its events have a real subject. */
  async function project(api: ApiClient, id: string): Promise<Project> {
    const sent = await api.post('/emails', { from: 'hello@acme.example', to: 'ada@example.com', subject: 'Hi', text: 'Hello' });
    if (sent.status !== 200) throw new Error(`send failed: ${sent.status} ${sent.text}`);
    return { id, api, emailId: sent.body.id };
  }

  /** `count` events of `type` in `p` at `at`; opens and clicks carry `is_bot`. */
  function events(p: Project, type: WebhookEventType, at: string, count = 1, isBot = false): NewEvent[] {
    return Array.from({ length: count }, () => {
      if (type === 'email.received') {
        return { projectId: p.id, subject: { kind: 'received_email', receivedEmailId: 'inb_stats' }, type, data: {}, createdAt: new Date(at) };
      }
      const seen = { ip_address: '192.0.2.1', user_agent: 'Mail', is_bot: isBot };
      const data = type === 'email.opened' ? { open: seen } : type === 'email.clicked' ? { click: { ...seen, link: 'https://acme.example/' } } : {};
      return { projectId: p.id, subject: { kind: 'email', emailId: p.emailId, recipient: 'ada@example.com' }, type, data, createdAt: new Date(at) };
    });
  }

  const append = (list: NewEvent[]) => inTransaction(pool, (client) => appendEvents(client, list));

  async function stats(p: Project, query: string) {
    const res = await p.api.get(`/stats${query}`);
    if (res.status !== 200) throw new Error(`GET /stats${query}: ${res.status} ${res.text}`);
    return res.body;
  }

  /** The rollup reads only events whose transaction is older than every running one: another test file's transaction may hold it back a moment. */
  async function rollUpUntilCaughtUp(): Promise<void> {
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
      await rollUpAllStats(pool, 7);
      const { rows } = await pool.query<{ behind: boolean }>({
        text: `SELECT EXISTS (SELECT 1 FROM email_events, outbox_cursors c WHERE c.consumer = $1 AND (email_events.xact_id, email_events.position) > (c.xact_id, c.position)) AS behind`,
        values: [STATS_CONSUMER],
      });
      if (!rows[0]?.behind) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the rollup did not catch up within 10 s');
  }

  beforeAll(async () => {
    t = await startTestGateway({ label: 'stats', env: { ALLOW_SIGNUP: 'true' } });
    pool = createPool(t.database.url, 4);
    const owner = await signUp(t.api);
    a = await project(owner.as, owner.projectId);
    // The other project through an API key.
    const other = await signUp(t.api);
    b = await project(t.api.as({ token: (await createKey(other.as)).token }), other.projectId);

    await append([
      ...events(a, 'email.sent', '2026-10-01T10:15:00Z', 4),
      ...events(a, 'email.delivered', '2026-10-01T10:20:00Z', 3),
      ...events(a, 'email.bounced', '2026-10-01T10:59:59.999Z'),
      ...events(a, 'email.opened', '2026-10-01T10:30:00Z', 2),
      ...events(a, 'email.opened', '2026-10-01T10:30:00Z', 1, true),
      ...events(a, 'email.complained', '2026-10-01T12:00:00Z'),
      ...events(a, 'email.clicked', '2026-10-01T12:05:00Z'),
      ...events(a, 'email.clicked', '2026-10-01T12:05:00Z', 3, true),
      ...events(a, 'email.delivery_delayed', '2026-10-03T00:00:00Z'),
      ...events(a, 'email.failed', '2026-10-03T23:59:59.999Z'),
      ...events(a, 'email.suppressed', '2026-10-03T08:00:00Z'),
      ...events(a, 'email.received', '2026-10-03T09:00:00Z', 2),
      // Not about mail: never counted.
      { projectId: a.id, subject: { kind: 'domain', domainId: 'dom_stats' }, type: 'domain.updated', data: {}, createdAt: new Date('2026-10-01T10:00:00Z') },
      { projectId: a.id, subject: { kind: 'webhook', webhookId: 'wh_stats' }, type: 'webhook.test', data: {}, createdAt: new Date('2026-10-01T10:00:00Z') },
      // The other project, in the same hours.
      ...events(b, 'email.sent', '2026-10-01T10:15:00Z', 5),
      ...events(b, 'email.bounced', '2026-10-01T10:16:00Z', 5),
      ...events(b, 'email.opened', '2026-10-03T09:00:00Z', 7),
    ]);
  });
  afterAll(async () => {
    await pool?.end();
    await t?.close();
  });

  const hourly = '?from=2026-10-01T09:30:00Z&to=2026-10-01T12:10:00.000%2B00:00&interval=hour';
  const daily = '?from=2026-09-30T12:00:00Z&to=2026-10-03T01:00:00Z';
  const expectedHourly = {
    object: 'stats',
    interval: 'hour',
    from: '2026-10-01T09:00:00.000Z',
    to: '2026-10-01T13:00:00.000Z',
    data: [
      { start: '2026-10-01T09:00:00.000Z', ...ZERO },
      { start: '2026-10-01T10:00:00.000Z', ...ZERO, sent: 4, delivered: 3, bounced: 1, opened: 2 },
      { start: '2026-10-01T11:00:00.000Z', ...ZERO },
      { start: '2026-10-01T12:00:00.000Z', ...ZERO, complained: 1, clicked: 1 },
    ],
    totals: { ...ZERO, sent: 4, delivered: 3, bounced: 1, opened: 2, complained: 1, clicked: 1 },
    bounceRate: 0.25,
    complaintRate: 1 / 3,
  };
  const expectedDaily = {
    object: 'stats',
    interval: 'day',
    from: '2026-09-30T00:00:00.000Z',
    to: '2026-10-04T00:00:00.000Z',
    data: [
      { start: '2026-09-30T00:00:00.000Z', ...ZERO },
      { start: '2026-10-01T00:00:00.000Z', ...ZERO, sent: 4, delivered: 3, bounced: 1, opened: 2, complained: 1, clicked: 1 },
      { start: '2026-10-02T00:00:00.000Z', ...ZERO },
      { start: '2026-10-03T00:00:00.000Z', ...ZERO, deliveryDelayed: 1, failed: 1, suppressed: 1, received: 2 },
    ],
    totals: { ...ZERO, sent: 4, delivered: 3, bounced: 1, opened: 2, complained: 1, clicked: 1, deliveryDelayed: 1, failed: 1, suppressed: 1, received: 2 },
    bounceRate: 0.25,
    complaintRate: 1 / 3,
  };

  test('when the rollup has not run yet, then hourly and daily buckets are aligned, zero-filled and exact; bots, domain and test events are not counted', async () => {
    expect((await pool.query({ text: 'SELECT count(*)::int AS n FROM stats_hourly' })).rows[0].n).toBe(0);
    expect(await stats(a, hourly)).toEqual(expectedHourly);
    expect(await stats(a, daily)).toEqual(expectedDaily);
  });

  test("when another project has events in the same hours, then each project counts only its own, and rates of zero divisors are 0", async () => {
    const other = await stats(b, daily);
    expect(other.totals).toEqual({ ...ZERO, sent: 5, bounced: 5, opened: 7 });
    expect(other.data[1]).toEqual({ start: '2026-10-01T00:00:00.000Z', ...ZERO, sent: 5, bounced: 5 });
    expect(other.bounceRate).toBe(1);
    expect(other.complaintRate).toBe(0);
    expect((await stats(a, daily)).totals.sent).toBe(4);
  });

  test('when the rollup has run, and events arrive after it, then the rollup plus the live tail answer exactly the same counts as the raw events', async () => {
    await rollUpUntilCaughtUp();
    const rolled = await pool.query<{ project_id: string; type: string; count: string }>({ text: 'SELECT project_id, type, count::text FROM stats_hourly' });
    // Bots and the events not about mail are not in the rollup.
    expect(rolled.rows.filter((r) => r.project_id === a.id && r.type === 'email.opened')).toEqual([{ project_id: a.id, type: 'email.opened', count: '2' }]);
    expect(rolled.rows.map((r) => r.type)).not.toContain('domain.updated');
    expect(await stats(a, hourly)).toEqual(expectedHourly);
    expect(await stats(a, daily)).toEqual(expectedDaily);

    // Past the cursor: counted live, added to the rolled-up hour.
    await append([...events(a, 'email.sent', '2026-10-01T10:45:00Z', 2), ...events(a, 'email.clicked', '2026-10-01T12:30:00Z', 1, true), ...events(b, 'email.sent', '2026-10-01T10:15:00Z')]);
    const withTail = {
      ...expectedHourly,
      data: expectedHourly.data.map((bucket, i) => (i === 1 ? { ...bucket, sent: 6 } : bucket)),
      totals: { ...expectedHourly.totals, sent: 6 },
      bounceRate: 1 / 6,
    };
    expect(await stats(a, hourly)).toEqual(withTail);
    await rollUpUntilCaughtUp();
    expect(await stats(a, hourly)).toEqual(withTail);
    expect((await stats(b, daily)).totals.sent).toBe(6);
  });

  test('when two rollups run at once, then one skips and no event is counted twice', async () => {
    await append(events(a, 'email.delivered', '2026-10-03T10:00:00Z', 3));
    const results = await Promise.all([rollUpStats(pool, 1000), rollUpStats(pool, 1000), rollUpStats(pool, 1000)]);
    // Counted twice, these would add up to 6 or 9.
    expect(results.reduce((sum, r) => sum + r.events, 0)).toBeLessThanOrEqual(3);
    await rollUpUntilCaughtUp();
    expect((await stats(a, daily)).totals.delivered).toBe(6);
  });

  test('when no range is given, then the last 30 days by day up to now; with interval=hour, the last 24 hours', async () => {
    const now = new Date().toISOString();
    await append(events(a, 'email.sent', now, 2));
    const before = Date.now();
    const byDay = await stats(a, '');
    expect(byDay.interval).toBe('day');
    expect(Date.parse(byDay.to)).toBe(Math.ceil(before / DAY) * DAY);
    // `from` is 30 days before now, truncated: today's partial day makes 31 buckets.
    expect(Date.parse(byDay.from)).toBe(Math.floor((before - 30 * DAY) / DAY) * DAY);
    expect(byDay.data).toHaveLength(31);
    expect(byDay.data.at(-1)).toMatchObject({ start: new Date(Math.floor(before / DAY) * DAY).toISOString(), sent: 2 });
    expect(byDay.totals.sent).toBe(2);

    const byHour = await stats(a, '?interval=hour');
    const to = Date.parse(byHour.to);
    expect(to % HOUR).toBe(0);
    expect(to).toBeGreaterThan(before);
    expect(to - Date.parse(byHour.from)).toBeGreaterThanOrEqual(24 * HOUR);
    expect(to - Date.parse(byHour.from)).toBeLessThanOrEqual(25 * HOUR);
    expect(byHour.data).toHaveLength((to - Date.parse(byHour.from)) / HOUR);
    expect(byHour.totals.sent).toBe(2);
    // Only `to` given: `from` is 30 days before it.
    const onlyTo = await stats(a, '?to=2026-10-02T00:00:00Z');
    expect([onlyTo.from, onlyTo.to, onlyTo.data.length]).toEqual(['2026-09-02T00:00:00.000Z', '2026-10-02T00:00:00.000Z', 30]);
  });

  test('when the range holds 1,000 hours, then it is answered; 1,001, then 422 naming `from`', async () => {
    const ok = await stats(a, `?interval=hour&from=2026-09-01T00:00:00Z&to=${new Date(Date.parse('2026-09-01T00:00:00Z') + 1000 * HOUR).toISOString()}`);
    expect(ok.data).toHaveLength(1000);
    const res = await a.api.get(`/stats?interval=hour&from=2026-09-01T00:00:00Z&to=${new Date(Date.parse('2026-09-01T00:00:00Z') + 1000 * HOUR + 1).toISOString()}`);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ name: 'validation_error', message: expect.stringContaining('`from`'), statusCode: 422 });
  });

  test.each([
    ['an unknown interval', '?interval=week', '`interval`'],
    ['a date that is not ISO 8601', '?from=yesterday', '`from`'],
    ['a date without a time zone', '?to=2026-10-01T00:00:00', '`to`'],
    ['from after to', '?from=2026-10-02T00:00:00Z&to=2026-10-01T00:00:00Z', '`from`'],
    ['from equal to to', '?from=2026-10-01T00:00:00Z&to=2026-10-01T00:00:00Z', '`from`'],
    ['a repeated parameter', '?interval=day&interval=hour', '`interval`'],
    ['a daily range over 1,000 days', '?from=2020-01-01T00:00:00Z&to=2026-10-01T00:00:00Z', '`from`'],
    ['an end that rounds up past year 9999', '?to=9999-12-31T23:59:59Z', '`to`'],
    ['an hourly end that rounds up past year 9999', '?from=9999-12-31T20:00:00Z&to=9999-12-31T23:00:01Z&interval=hour', '`to`'],
    ['year 0', '?from=0000-01-01T00:00:00Z&to=0000-01-02T00:00:00Z', '`from`'],
    ['an offset that moves the start before year 1', '?from=0001-01-01T00:30:00%2B01:00&to=0001-01-02T00:00:00Z', '`from`'],
  ])('when given %s, then 422 validation_error naming the field', async (_label, query, field) => {
    const res = await a.api.get(`/stats${query}`);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ name: 'validation_error', message: expect.stringContaining(field), statusCode: 422 });
  });

  test('when the range ends as late as the API goes (year 9999), then it is answered', async () => {
    for (const query of ['?from=9999-12-30T00:00:00Z&to=9999-12-31T00:00:00Z', '?from=9999-12-31T20:00:00Z&to=9999-12-31T23:00:00Z&interval=hour']) {
      const res = await a.api.get(`/stats${query}`);
      expect([query, res.status]).toEqual([query, 200]);
      expect(res.body.data.at(-1).start).toMatch(/^9999-12-3/);
    }
  });

  test('when called without credentials or with a sending_access key, then 401 and 403', async () => {
    expect((await t.api.get('/stats')).body).toMatchObject({ name: 'missing_api_key', statusCode: 401 });
    const owner = await signUp(t.api);
    const sending = t.api.as({ token: (await createKey(owner.as, 'sending_access')).token });
    expect((await sending.get('/stats')).body).toMatchObject({ name: 'restricted_api_key', statusCode: 403 });
  });
});
