import { newId } from '@mailroom/core';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/databases';
import { createPool, type Pool } from '../pool';
import { type AttemptRecord, recordAttempts } from './record-attempts';

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
