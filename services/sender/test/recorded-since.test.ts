import { createPool, type Pool } from '@mailroom/db';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { SendStore } from '../src/send-store';

// A commit of outcomes whose reply was lost (PostgreSQL went away) may have gone through: before
// trying it again, the sender asks which of its attempts the recipients' rows already show.

describe('SendStore.recordedSince', () => {
  let db: TestDatabase;
  let pool: Pool;
  let store: SendStore;

  beforeAll(async () => {
    db = await createTestDatabase('recordedsince');
    pool = createPool(db.url, 2);
    store = new SendStore(pool, 'test-worker', 60);
    await pool.query(`
      INSERT INTO projects (id, name, updated_at) VALUES ('proj_A', 'a', now());
      INSERT INTO emails (id, project_id, from_header, from_address, "to", subject, text, track_opens, track_clicks, message_id, status, created_at, updated_at)
      VALUES ('em_1', 'proj_A', 'a@acme.test', 'a@acme.test', ARRAY['x@y.test'], 's', 't', false, false, 'm1', 'sent', now(), now());
      INSERT INTO email_recipients (id, email_id, address, kind, status, attempts, updated_at) VALUES
        ('rcpt_moved', 'em_1', 'moved@y.test', 'to', 'delivered', 2, now()),
        ('rcpt_same', 'em_1', 'same@y.test', 'to', 'queued', 1, now()),
        ('rcpt_suppressed', 'em_1', 'gone@y.test', 'to', 'suppressed', 0, now()),
        ('rcpt_not_yet', 'em_1', 'later@y.test', 'to', 'queued', 0, now());
    `);
  });

  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  test('when an attempt count moved past the claimed one, or a suppression shows, then those are recorded, and only those', async () => {
    const recorded = await store.recordedSince([
      { id: 'rcpt_moved', attempts: 1, suppressed: false },
      { id: 'rcpt_same', attempts: 1, suppressed: false },
      { id: 'rcpt_suppressed', attempts: 0, suppressed: true },
      { id: 'rcpt_not_yet', attempts: 0, suppressed: true },
      { id: 'rcpt_missing', attempts: 0, suppressed: false },
    ]);
    expect([...recorded].sort()).toEqual(['rcpt_moved', 'rcpt_suppressed']);
  });
});
