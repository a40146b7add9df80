import { type DeliveryKey, newId } from '@mailroom/core';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/databases';
import { createPool, type Pool } from '../pool';
import { claimDeliveries } from './claim-deliveries';
import { fanOutEvents } from './fan-out';

let db: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  db = await createTestDatabase('claims');
  pool = createPool(db.url, 1);
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

/** A project of its own (the fan-out reaches every endpoint of an event's project) with one endpoint. */
async function endpoint(): Promise<{ projectId: string; webhookId: string }> {
  const projectId = newId('project');
  await pool.query({ text: 'INSERT INTO projects (id, name, updated_at) VALUES ($1, $2, now())', values: [projectId, 'Claims'] });
  const id = newId('webhook');
  await pool.query({
    text: `INSERT INTO webhooks (id, project_id, url, events, secret_ciphertext, enabled, updated_at)
           VALUES ($1, $2, 'http://127.0.0.1/hook', '{email.delivered}', 'sealed', true, now())`,
    values: [id, projectId],
  });
  return { projectId, webhookId: id };
}

/**
 * Appends `count` events of the endpoint's project and fans them out until each has its
 * delivery (the outbox holds an event back while an older transaction of the server is open).
 */
async function eventsFannedOut(target: { projectId: string; webhookId: string }, count: number): Promise<DeliveryKey[]> {
  await pool.query({
    text: `INSERT INTO email_events (id, project_id, received_email_id, type, data)
           SELECT id, $2, 'inb_test', 'email.delivered', '{"n": 1}' FROM unnest($1::text[]) WITH ORDINALITY AS e(id, n) ORDER BY n`,
    values: [Array.from({ length: count }, () => newId('event')), target.projectId],
  });
  const keys: DeliveryKey[] = [];
  const deadline = Date.now() + FAN_OUT_TIMEOUT_MS;
  while (keys.length < count) {
    if (Date.now() > deadline) throw new Error(`${keys.length} of ${count} deliveries fanned out`);
    const page = await fanOutEvents(pool, 500);
    keys.push(...page.deliveries.filter((k) => k.webhookId === target.webhookId));
    if (page.events === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return keys;
}

const STATS_FLUSH_MS = 1_500;
const FAN_OUT_TIMEOUT_MS = 10_000;

/** Rows of webhook_deliveries read so far by sequential scans and through each index. */
async function tuplesRead(): Promise<{ seq: number; byIndex: Record<string, number> }> {
  // This backend's counts, reported now rather than within the next second or so.
  await pool.query('SELECT pg_stat_force_next_flush()');
  await new Promise((resolve) => setTimeout(resolve, STATS_FLUSH_MS));
  await pool.query('SELECT pg_stat_clear_snapshot()');
  const table = await pool.query<{ seq: string }>("SELECT seq_tup_read AS seq FROM pg_stat_user_tables WHERE relname = 'webhook_deliveries'");
  const indexes = await pool.query<{ name: string; read: string }>(
    "SELECT indexrelname AS name, idx_tup_read AS read FROM pg_stat_user_indexes WHERE relname = 'webhook_deliveries'",
  );
  return { seq: Number(table.rows[0]?.seq ?? 0), byIndex: Object.fromEntries(indexes.rows.map((r) => [r.name, Number(r.read)])) };
}

describe('claimDeliveries', () => {
  test('when thousands of an endpoint are pending in a table without statistics, then a claim reads only its own rows, by primary key', async () => {
    const target = await endpoint();
    // The first claims while the table is nearly empty: a plan kept from then scanned it all later.
    const first = await eventsFannedOut(target, 20);
    for (const key of first) expect(await claimDeliveries(pool, [key], 300)).toHaveLength(1);
    const keys = await eventsFannedOut(target, 5_000);

    const before = await tuplesRead();
    const claimed = await claimDeliveries(pool, keys.slice(2_000, 2_090), 300);
    const after = await tuplesRead();

    expect(claimed.map((t) => t.eventId).sort()).toEqual(keys.slice(2_000, 2_090).map((k) => k.eventId).sort());
    expect(after.seq - before.seq).toBe(0);
    const read = Object.fromEntries(Object.entries(after.byIndex).map(([name, n]) => [name, n - (before.byIndex[name] ?? 0)]));
    expect(read.webhook_deliveries_pkey).toBeGreaterThanOrEqual(90);
    expect(read.webhook_deliveries_pkey).toBeLessThan(200);
    expect(read.webhook_deliveries_webhook_id_created_at_idx).toBe(0);
    expect(read.webhook_deliveries_next_attempt_at_idx).toBe(0);
  });

  test('when a delivery is claimed twice, then the second claim gets nothing while the lease holds', async () => {
    const [key] = await eventsFannedOut(await endpoint(), 1);
    expect(await claimDeliveries(pool, [key as DeliveryKey], 300)).toHaveLength(1);
    expect(await claimDeliveries(pool, [key as DeliveryKey], 300)).toEqual([]);
  });

  test('when the endpoint was disabled after the fan-out, then the claim stops its delivery (failed, unleased) and returns nothing, but claims a manual one', async () => {
    const target = await endpoint();
    const { webhookId } = target;
    const [stopped, manual] = await eventsFannedOut(target, 2);
    await pool.query({ text: 'UPDATE webhooks SET enabled = false WHERE id = $1', values: [webhookId] });
    await pool.query({ text: 'UPDATE webhook_deliveries SET manual = true WHERE event_id = $1', values: [manual?.eventId] });

    const claimed = await claimDeliveries(pool, [stopped as DeliveryKey, manual as DeliveryKey], 300);

    expect(claimed.map((t) => [t.eventId, t.manual])).toEqual([[manual?.eventId, true]]);
    const { rows } = await pool.query<{ event_id: string; state: string; leased: boolean }>({
      text: 'SELECT event_id, state::text, lease_until IS NOT NULL AS leased FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY state',
      values: [webhookId],
    });
    expect(rows).toEqual([
      { event_id: stopped?.eventId, state: 'failed', leased: false },
      { event_id: manual?.eventId, state: 'pending', leased: true },
    ]);
  });
});

describe('claim order', () => {
  test('when deliveries are claimed in any order, then they come back in outbox order, which the runner posts them in', async () => {
    const target = await endpoint();
    const keys = await eventsFannedOut(target, 6);
    const { rows } = await pool.query<{ id: string }>({
      text: 'SELECT id FROM email_events WHERE id = ANY($1::text[]) ORDER BY position',
      values: [keys.map((k) => k.eventId)],
    });
    const claimed = await claimDeliveries(pool, [...keys].reverse(), 60);
    expect(claimed.map((t) => t.eventId)).toEqual(rows.map((r) => r.id));
  });
});
