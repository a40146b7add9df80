import { newId } from '@mailroom/core';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/databases';
import { createPool, type Pool } from '../pool';
import { listWebhookAttempts } from '../webhook-endpoints/webhook-attempts';
import { deleteWebhook } from '../webhook-endpoints/webhook-rows';
import { claimDeliveries } from './claim-deliveries';
import { type AttemptRecord, recordAttempts, recordReplay } from './record-attempts';

let db: TestDatabase;
let pool: Pool;
let projectId: string;

beforeAll(async () => {
  db = await createTestDatabase('attempts');
  pool = createPool(db.url, 12);
  projectId = newId('project');
  await pool.query({ text: 'INSERT INTO projects (id, name, updated_at) VALUES ($1, $2, now())', values: [projectId, 'Attempts'] });
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

/** `count` endpoints, and one event delivered (pending, leased) to each of them per batch to come. */
async function endpointsWithDeliveries(count: number, events: number): Promise<{ webhookIds: string[]; eventIds: string[] }> {
  const webhookIds = Array.from({ length: count }, () => newId('webhook'));
  const eventIds = Array.from({ length: events }, () => newId('event'));
  await pool.query({
    text: `INSERT INTO webhooks (id, project_id, url, events, secret_ciphertext, updated_at)
           SELECT id, $2, 'http://127.0.0.1/hook', '{email.received}', 'sealed', now() FROM unnest($1::text[]) AS id`,
    values: [webhookIds, projectId],
  });
  await pool.query({
    text: `INSERT INTO email_events (id, project_id, received_email_id, type, data) SELECT id, $2, 'inb_test', 'email.received', '{}' FROM unnest($1::text[]) AS id`,
    values: [eventIds, projectId],
  });
  await pool.query({
    text: `INSERT INTO webhook_deliveries (event_id, webhook_id, project_id, next_attempt_at, lease_until, updated_at)
           SELECT e, w, $3, now(), now() + interval '1 minute', now() FROM unnest($1::text[]) AS e, unnest($2::text[]) AS w`,
    values: [eventIds, webhookIds, projectId],
  });
  return { webhookIds, eventIds };
}

const success = (eventId: string, webhookId: string): AttemptRecord => ({
  eventId,
  webhookId,
  eventType: 'email.received',
  trigger: 'scheduled',
  url: 'http://127.0.0.1/hook',
  responseStatus: 200,
  responseBody: 'ok',
  durationMs: 50,
  error: null,
  success: true,
  nextRetryAt: null,
  createdAt: new Date(),
  leased: true,
  gone: false,
});

describe('recordAttempts from several dispatchers at once', () => {
  test('when batches name the same endpoints in different orders at once, then none deadlocks and every attempt is written', async () => {
    const writers = 10;
    const rounds = 40;
    const { webhookIds, eventIds } = await endpointsWithDeliveries(6, writers * rounds);
    // Writer w's batch of round r: its own event, to every endpoint, in an order of its own (rotated, every other one reversed).
    const batch = (writer: number, round: number) => {
      const eventId = eventIds[writer * rounds + round] as string;
      const rotated = webhookIds.map((_, i) => webhookIds[(i + writer + round) % webhookIds.length] as string);
      return (writer % 2 === 0 ? rotated : rotated.reverse()).map((webhookId) => success(eventId, webhookId));
    };
    await Promise.all(
      Array.from({ length: writers }, async (_, writer) => {
        for (let round = 0; round < rounds; round++) await recordAttempts(pool, batch(writer, round));
      }),
    );
    const { rows } = await pool.query<{ state: string; n: string }>('SELECT state::text, count(*) AS n FROM webhook_deliveries GROUP BY 1');
    expect(rows.map((r) => [r.state, Number(r.n)])).toEqual([['succeeded', writers * rounds * webhookIds.length]]);
    const attempts = await pool.query<{ n: string }>('SELECT count(*) AS n FROM webhook_attempts');
    expect(Number(attempts.rows[0]?.n)).toBe(writers * rounds * webhookIds.length);
  });
});

describe('the retry schedule and manual attempts', () => {
  test('when a scheduled attempt fails and a replay fails after it, then the replay is numbered next but the next claim is still at the schedule\'s second place', async () => {
    const { webhookIds, eventIds } = await endpointsWithDeliveries(1, 1);
    const [webhookId, eventId] = [webhookIds[0] as string, eventIds[0] as string];
    const failed = { ...success(eventId, webhookId), success: false, responseStatus: 500 };
    await recordAttempts(pool, [{ ...failed, nextRetryAt: new Date(Date.now() + 60_000) }]);
    // A replay: manual, under no lease; its failure leaves the scheduled retry as it was.
    const [replay] = await recordAttempts(pool, [{ ...failed, trigger: 'manual', leased: false, createdAt: new Date(Date.now() + 1) }]);
    expect([replay?.attempt, replay?.trigger]).toEqual([2, 'manual']);
    // The retry fallen due.
    const claim = async () => {
      await pool.query({ text: 'UPDATE webhook_deliveries SET lease_until = NULL, next_attempt_at = now() WHERE webhook_id = $1', values: [webhookId] });
      const [target] = await claimDeliveries(pool, [{ eventId, webhookId }], 60);
      return target?.scheduledAttemptsBefore;
    };
    expect(await claim()).toBe(1);
    const [third] = await recordAttempts(pool, [{ ...failed, nextRetryAt: new Date(Date.now() + 60_000), createdAt: new Date(Date.now() + 2) }]);
    expect([third?.attempt, third?.trigger]).toEqual([3, 'scheduled']);
    expect(await claim()).toBe(2);
  });
});

describe('recordReplay', () => {
  test('when a replay succeeds, then the retry it cancels is no longer named in the log; a retry that happened and a failed replay keep theirs', async () => {
    const { webhookIds, eventIds } = await endpointsWithDeliveries(1, 1);
    const [webhookId, eventId] = [webhookIds[0] as string, eventIds[0] as string];
    const failed = { ...success(eventId, webhookId), success: false, responseStatus: 500 };
    const t0 = Date.now();
    // Attempt 1 was retried (attempt 2, one second later), whose own retry is an hour away.
    await recordAttempts(pool, [{ ...failed, createdAt: new Date(t0 - 2_000), nextRetryAt: new Date(t0 - 1_000) }]);
    const retry = new Date(t0 + 3_600_000);
    await recordAttempts(pool, [{ ...failed, createdAt: new Date(t0 - 1_000), nextRetryAt: retry }]);
    const replayed = { ...failed, trigger: 'manual' as const, leased: false, nextRetryAt: null };
    expect(await recordReplay(pool, { ...replayed, createdAt: new Date(t0) })).toMatchObject({ attempt: 3, success: false });
    const log = async () => (await listWebhookAttempts(pool, { projectId, webhookId, limit: 10 })).map((a) => [a.attempt, a.nextRetryAt?.getTime() ?? null]);
    expect(await log()).toEqual([[3, null], [2, retry.getTime()], [1, t0 - 1_000]]);
    const state = async () => (await pool.query({ text: 'SELECT state::text, next_attempt_at FROM webhook_deliveries WHERE webhook_id = $1', values: [webhookId] })).rows[0];
    expect((await state())?.state).toBe('pending');

    expect(await recordReplay(pool, { ...replayed, success: true, responseStatus: 200, createdAt: new Date(t0 + 1) })).toMatchObject({ attempt: 4, success: true });
    expect(await log()).toEqual([[4, null], [3, null], [2, null], [1, t0 - 1_000]]);
    expect(await state()).toEqual({ state: 'succeeded', next_attempt_at: null });
  });
});

describe('timestamps when the database session is not in UTC', () => {
  // A server whose timezone setting is Tokyo's (initdb takes the host's): UTC+9, no daylight saving.
  let tokyo: Pool;
  beforeAll(() => {
    tokyo = createPool(`${db.url}?options=${encodeURIComponent('-c TimeZone=Asia/Tokyo')}`, 2);
  });
  afterAll(() => tokyo.end());

  test('when an attempt is recorded, then the log answers the instants recorded, from recordAttempts and listWebhookAttempts alike', async () => {
    expect((await tokyo.query<{ tz: string }>({ text: "SELECT current_setting('TimeZone') AS tz" })).rows[0]?.tz).toBe('Asia/Tokyo');
    const { webhookIds, eventIds } = await endpointsWithDeliveries(1, 1);
    const [webhookId, eventId] = [webhookIds[0] as string, eventIds[0] as string];
    const createdAt = new Date(Date.now() - 1_000);
    const nextRetryAt = new Date(createdAt.getTime() + 300_000);
    const [written] = await recordAttempts(tokyo, [{ ...success(eventId, webhookId), success: false, responseStatus: 500, createdAt, nextRetryAt }]);
    expect({ createdAt: written?.createdAt.toISOString(), nextRetryAt: written?.nextRetryAt?.toISOString() }).toEqual({
      createdAt: createdAt.toISOString(),
      nextRetryAt: nextRetryAt.toISOString(),
    });
    const [listed] = await listWebhookAttempts(tokyo, { projectId, webhookId, limit: 1 });
    expect({ createdAt: listed?.createdAt.toISOString(), nextRetryAt: listed?.nextRetryAt?.toISOString() }).toEqual({
      createdAt: createdAt.toISOString(),
      nextRetryAt: nextRetryAt.toISOString(),
    });
  });

  test('when a secret was replaced 19 hours ago, then deliveries are still signed with it (24 hours, whatever the zone)', async () => {
    const { webhookIds, eventIds } = await endpointsWithDeliveries(1, 1);
    const [webhookId, eventId] = [webhookIds[0] as string, eventIds[0] as string];
    // As rotateWebhookSecret leaves it, 19 hours later: expiring in 5 hours, in UTC wall time (read as Tokyo's, 4 hours ago).
    await pool.query({
      text: `UPDATE webhooks SET previous_secret_ciphertext = 'old', previous_secret_expires_at = (now() AT TIME ZONE 'UTC') + interval '5 hours' WHERE id = $1`,
      values: [webhookId],
    });
    await pool.query({ text: 'UPDATE webhook_deliveries SET lease_until = NULL WHERE webhook_id = $1', values: [webhookId] });
    const [target] = await claimDeliveries(tokyo, [{ eventId, webhookId }], 60);
    expect(target?.previousSecretCiphertext).toBe('old');
  });
});

/** Waits until a statement starting with `prefix` waits for a lock in this database. */
async function waitingForLock(prefix: string): Promise<void> {
  for (;;) {
    const { rows } = await pool.query<{ n: number }>({
      text: `SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1 || '%'`,
      values: [prefix],
    });
    if ((rows[0]?.n ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Whether another transaction could lock this row now (`NOWAIT`): false when one holds it. */
async function lockable(sql: string, values: unknown[]): Promise<boolean> {
  const probe = await pool.connect();
  try {
    await probe.query('BEGIN');
    await probe.query({ text: `${sql} NOWAIT`, values });
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === '55P03') return false;
    throw err;
  } finally {
    await probe.query('ROLLBACK');
    probe.release();
  }
}

// Every writer of an endpoint's deliveries locks the endpoint first. With the recorder taking
// deliveries first, a delete holding the endpoint and a recorder holding a delivery made after
// the delete began waited for each other (a deadlock; PostgreSQL aborted one of them after a second).
describe('the lock order: an endpoint before its deliveries', () => {
  test('when the endpoint is held (as a delete holds it), then the recorder waits for it before touching any of its deliveries', async () => {
    const { webhookIds, eventIds } = await endpointsWithDeliveries(1, 1);
    const [webhookId, eventId] = [webhookIds[0] as string, eventIds[0] as string];
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query({ text: 'SELECT 1 FROM webhooks WHERE id = $1 FOR UPDATE', values: [webhookId] });
      const recording = recordAttempts(pool, [success(eventId, webhookId)]);
      await waitingForLock('WITH x AS');
      expect(await lockable('SELECT 1 FROM webhook_deliveries WHERE event_id = $1 AND webhook_id = $2 FOR UPDATE', [eventId, webhookId])).toBe(true);
      await holder.query('COMMIT');
      expect(await recording).toHaveLength(1);
    } finally {
      holder.release();
    }
  });

  test('when a delivery is held while its endpoint is deleted, then the delete holds the endpoint as it waits, and removes both once the holder commits', async () => {
    const { webhookIds } = await endpointsWithDeliveries(1, 1);
    const webhookId = webhookIds[0] as string;
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query({ text: 'UPDATE webhook_deliveries SET attempts = attempts + 1 WHERE webhook_id = $1', values: [webhookId] });
      const deleting = deleteWebhook(pool, projectId, webhookId);
      await waitingForLock('DELETE FROM webhook_deliveries');
      // Held by the delete: no delivery can be added for it (an insert's key check waits), nor a recorder start on it.
      expect(await lockable('SELECT 1 FROM webhooks WHERE id = $1 FOR KEY SHARE', [webhookId])).toBe(false);
      await holder.query('COMMIT');
      expect(await deleting).toBe(true);
    } finally {
      holder.release();
    }
    expect((await pool.query({ text: 'SELECT 1 FROM webhook_deliveries WHERE webhook_id = $1', values: [webhookId] })).rows).toEqual([]);
    expect((await pool.query({ text: 'SELECT 1 FROM webhooks WHERE id = $1', values: [webhookId] })).rows).toEqual([]);
  });
});
