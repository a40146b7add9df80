import { newId } from '@mailroom/core';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/databases';
import { createPool, inTransaction, type Pool } from '../pool';
import { insertWebhook, updateWebhook } from './webhook-rows';

let db: TestDatabase;
let pool: Pool;
let projectId: string;

beforeAll(async () => {
  db = await createTestDatabase('whrows');
  pool = createPool(db.url, 4);
  projectId = newId('project');
  await pool.query({ text: 'INSERT INTO projects (id, name, updated_at) VALUES ($1, $2, now())', values: [projectId, 'Rows'] });
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

const newWebhook = (enabled: boolean) => ({
  id: newId('webhook'),
  projectId,
  url: 'https://hooks.example.test/in',
  events: ['email.sent'],
  routeId: null,
  description: null,
  enabled,
});

/** Whether the endpoint's subscribed_at is not after now() of the transaction that set it. */
const notAfterNow = (client: { query: Pool['query'] }, id: string) =>
  client
    .query<{ ok: boolean }>({ text: `SELECT subscribed_at <= (now() AT TIME ZONE 'UTC') AS ok FROM webhooks WHERE id = $1`, values: [id] })
    .then((r) => r.rows[0]?.ok);

describe('when an endpoint starts receiving events', () => {
  // Rounded into the column's milliseconds, subscribed_at lands after now() about half the time,
  // and an event created (producer's clock, whole milliseconds) right after would read as older.
  test('then subscribed_at is never later than the moment it was created, over many creations', async () => {
    for (let i = 0; i < 24; i++) {
      const webhook = newWebhook(true);
      const later = await inTransaction(pool, async (client) => {
        await insertWebhook(client, webhook, Buffer.alloc(32, 1));
        return notAfterNow(client, webhook.id);
      });
      expect(later).toBe(true);
    }
  });

  test('then subscribed_at is never later than the moment it was re-enabled, over many re-enablings', async () => {
    const webhook = newWebhook(false);
    await insertWebhook(pool, webhook, Buffer.alloc(32, 1));
    for (let i = 0; i < 24; i++) {
      const later = await inTransaction(pool, async (client) => {
        await updateWebhook(client, projectId, webhook.id, { enabled: true });
        const ok = await notAfterNow(client, webhook.id);
        await updateWebhook(client, projectId, webhook.id, { enabled: false });
        return ok;
      });
      expect(later).toBe(true);
    }
  });
});
