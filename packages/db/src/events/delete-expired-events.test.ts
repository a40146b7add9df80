import { newId, newIdAt } from '@mailroom/core';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/databases';
import { deleteExpiredWebhookLog } from '../webhook-deliveries/delete-expired-webhook-log';
import { createPool, inTransaction, type Pool } from '../pool';
import { appendEvents, type EventSubject } from './append-events';
import { deleteExpiredEvents } from './delete-expired-events';

const DAY = 86_400_000;
const RETENTION_DAYS = 30;

let db: TestDatabase;
let pool: Pool;
let projectId: string;
let webhookId: string;

beforeAll(async () => {
  db = await createTestDatabase('eventretention');
  pool = createPool(db.url, 4);
  projectId = newId('project');
  webhookId = newId('webhook');
  await pool.query({ text: 'INSERT INTO projects (id, name, updated_at) VALUES ($1, $2, now())', values: [projectId, 'Retention'] });
  await pool.query({
    text: `INSERT INTO webhooks (id, project_id, url, events, secret_ciphertext, updated_at) VALUES ($1, $2, 'https://hooks.example.test/', '{email.received}', 'x', now())`,
    values: [webhookId, projectId],
  });
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

/** An event made `ageDays` ago, in a transaction of its own, with a delivery to the endpoint in `state`. */
async function event(ageDays: number, subject: EventSubject, state: 'pending' | 'succeeded' = 'succeeded'): Promise<string> {
  const id = newIdAt('event', Date.now() - ageDays * DAY);
  await inTransaction(pool, async (client) => {
    await appendEvents(client, [{ id, projectId, subject, type: 'email.received', data: { email_id: 'inb_x' } }]);
    await client.query({
      text: `INSERT INTO webhook_deliveries (event_id, webhook_id, project_id, state, attempts, next_attempt_at)
             VALUES ($1, $2, $3, $4::"WebhookDeliveryState", 1, CASE WHEN $4::text = 'pending' THEN now() + interval '1 hour' END)`,
      values: [id, webhookId, projectId, state],
    });
    await client.query({
      text: `INSERT INTO webhook_attempts (id, webhook_id, event_id, event_type, attempt, trigger, url, response_status, duration_ms, success)
             VALUES ($1, $2, $3, 'email.received', 1, 'scheduled', 'https://hooks.example.test/', 200, 5, true)`,
      values: [newIdAt('webhookAttempt', Date.now() - ageDays * DAY), webhookId, id],
    });
  });
  return id;
}

/** Every outbox follower has passed `eventId`. */
async function followersPassed(eventId: string): Promise<void> {
  for (const consumer of ['webhooks', 'stats']) {
    await pool.query({
      text: `INSERT INTO outbox_cursors (consumer, xact_id, position) SELECT $1, xact_id, position FROM email_events WHERE id = $2
             ON CONFLICT (consumer) DO UPDATE SET xact_id = EXCLUDED.xact_id, position = EXCLUDED.position`,
      values: [consumer, eventId],
    });
  }
}

async function existing(table: 'email_events' | 'webhook_deliveries', ids: string[]): Promise<string[]> {
  const column = table === 'email_events' ? 'id' : 'event_id';
  const { rows } = await pool.query<{ id: string }>({ text: `SELECT ${column} AS id FROM ${table} WHERE ${column} = ANY($1::text[]) ORDER BY 1`, values: [ids] });
  return rows.map((r) => r.id);
}

const received = (): EventSubject => ({ kind: 'received_email', receivedEmailId: newId('receivedEmail') });

describe('events and the webhook log past retention', () => {
  test('when events on no sent email\'s timeline are older than the retention and every follower passed them, then they go and their pending deliveries stop; newer ones, unread ones and sent emails\' stay', async () => {
    const expired = await event(40, received(), 'pending');
    const onTimeline = await event(40, { kind: 'email', emailId: newId('email'), recipient: 'r@example.test' });
    await followersPassed(onTimeline);
    const unread = await event(35, received());
    const recent = await event(5, received());

    expect(await deleteExpiredEvents(pool, { olderThanDays: RETENTION_DAYS })).toBe(1);

    expect(await existing('email_events', [expired, onTimeline, unread, recent])).toEqual([onTimeline, unread, recent].sort());
    const { rows } = await pool.query<{ state: string }>({ text: 'SELECT state FROM webhook_deliveries WHERE event_id = $1', values: [expired] });
    expect(rows).toEqual([{ state: 'failed' }]);
  });

  test('when attempts and finished deliveries are older than the retention, then they go, a page at a time; pending and newer ones stay', async () => {
    const old = [await event(45, received()), await event(44, received()), await event(43, received())];
    const pending = await event(42, received(), 'pending');
    const recent = await event(3, received());
    const ids = [...old, pending, recent];

    const deleted = await deleteExpiredWebhookLog(pool, { olderThanDays: RETENTION_DAYS, batchSize: 2 });

    // This file's earlier events are older than the retention too: each has a finished delivery and an attempt.
    expect(deleted.deliveries).toBeGreaterThanOrEqual(3);
    expect(await existing('webhook_deliveries', ids)).toEqual([pending, recent].sort());
    const { rows } = await pool.query<{ event_id: string }>({ text: 'SELECT event_id FROM webhook_attempts WHERE event_id = ANY($1::text[]) ORDER BY 1', values: [ids] });
    expect(rows.map((r) => r.event_id)).toEqual([recent]);
    expect(deleted.attempts).toBeGreaterThanOrEqual(4);
  });
});
