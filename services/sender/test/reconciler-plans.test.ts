import { randomBytes } from 'node:crypto';
import { createLogger, createRedis, openQueue, queues, SendQueue, type Redis } from '@mailroom/core';
import { createPool, type Pool } from '@mailroom/db';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { reconcileSends } from '../src/reconciler';

// The reconciler over 60,000 emails, nearly all finished (next_attempt_at NULL), ANALYZEd. A
// generic plan (one made without the parameters' values, as PostgreSQL may cache for a prepared
// statement) must still read the due rows, not walk the table by primary key.

const EMAILS = 60_000;
// Emails 59,001 to 60,000 and every 200th before: 1,295 due an hour ago, three to a timestamp
// (pages end inside a group), of which every 7th is leased to a live worker.
const isDue = (g: number) => g > 59_000 || g % 200 === 0;
const isLeased = (g: number) => g % 7 === 0;
const GRACE_SECONDS = 300;

describe('the sender reconciler at scale', () => {
  let db: TestDatabase;
  let pool: Pool;
  let redis: Redis;
  const prefix = `mrtest-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    db = await createTestDatabase('reconcileplans');
    pool = createPool(db.url, 2);
    redis = createRedis('redis://127.0.0.1:6379', 'worker');
    await pool.query(`
      INSERT INTO projects (id, name, updated_at) VALUES ('proj_A', 'a', now());
      INSERT INTO emails (id, project_id, from_header, from_address, "to", subject, text, track_opens, track_clicks, message_id, status,
                          next_attempt_at, lease_owner, lease_expires_at, created_at, updated_at)
      SELECT 'em_' || lpad(g::text, 26, '0'), 'proj_A', 'a@acme.test', 'a@acme.test', ARRAY['x@y.test'], 's', 't', false, false, 'm' || g,
             CASE WHEN ${sqlIsDue('g')} THEN 'queued' ELSE 'delivered' END::"DeliveryStatus",
             CASE WHEN ${sqlIsDue('g')} THEN now() - interval '1 hour' + (g / 3) * interval '1 millisecond'
                  WHEN g % 1000 = 1 THEN now() + interval '1 hour'     -- a retry not yet due
                  WHEN g % 1000 = 2 THEN now() - interval '10 seconds' -- due, but inside the grace
             END,
             CASE WHEN ${sqlIsDue('g')} AND g % 7 = 0 THEN 'other-worker' END,
             CASE WHEN ${sqlIsDue('g')} AND g % 7 = 0 THEN now() + interval '5 minutes' END,
             now(), now()
        FROM generate_series(1, ${EMAILS}) g;
    `);
    await pool.query('VACUUM ANALYZE emails');
  }, 60_000);

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await pool.end();
    await db.drop();
  });

  test('when PostgreSQL plans the query without its parameters, then it reads about the due emails, not the table, and re-enqueues each unclaimed one once', async () => {
    const sendQueue = new SendQueue(redis, prefix);
    const client = await pool.connect();
    let found: number;
    let read: number;
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL plan_cache_mode = force_generic_plan');
      // This transaction's own counts, which are reported only after it ends.
      const readSoFar = async () =>
        Number(
          (
            await client.query<{ n: string }>(
              `SELECT (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::text AS n FROM pg_stat_xact_user_tables WHERE relname = 'emails'`,
            )
          ).rows[0]?.n ?? 0,
        );
      const before = await readSoFar();
      found = await reconcileSends(client, sendQueue, createLogger({ service: 'test', level: 'silent', nodeEnv: 'test' }), GRACE_SECONDS);
      read = (await readSoFar()) - before;
    } finally {
      await client.query('ROLLBACK');
      client.release();
      await sendQueue.close();
    }

    const expected = Array.from({ length: EMAILS }, (_, i) => i + 1)
      .filter((g) => isDue(g) && !isLeased(g))
      .map((g) => `em_${String(g).padStart(26, '0')}`);
    expect(expected.length).toBeGreaterThan(1_000);
    expect(found).toBe(expected.length);
    const queue = openQueue(queues.send, { connection: redis, prefix });
    try {
      const jobs = await queue.queue.getJobs(['wait', 'delayed'], 0, -1);
      expect(jobs.flatMap((job) => job.data.emailIds).sort()).toEqual(expected);
    } finally {
      await queue.close();
    }
    // The due rows (leased ones included) and a few re-read at each page's boundary; the
    // primary key walk read all 60,000.
    expect(read).toBeLessThan(2_000);
  }, 60_000);
});

describe('the sender reconciler with one due time', () => {
  test('when more than a page of emails share one due time, then each is re-enqueued once and the reconciler ends', async () => {
    const db = await createTestDatabase('reconcilesametime');
    const pool = createPool(db.url, 2);
    const redis = createRedis('redis://127.0.0.1:6379', 'worker');
    const prefix = `mrtest-${randomBytes(4).toString('hex')}`;
    const sendQueue = new SendQueue(redis, prefix);
    try {
      // One statement's now(): what a group commit of accepted sends writes.
      await pool.query(`
        INSERT INTO projects (id, name, updated_at) VALUES ('proj_A', 'a', now());
        INSERT INTO emails (id, project_id, from_header, from_address, "to", subject, text, track_opens, track_clicks, message_id, status,
                            next_attempt_at, created_at, updated_at)
        SELECT 'em_' || lpad(g::text, 26, '0'), 'proj_A', 'a@acme.test', 'a@acme.test', ARRAY['x@y.test'], 's', 't', false, false, 'm' || g,
               'queued', now() - interval '1 hour', now(), now()
          FROM generate_series(1, 1200) g;
      `);
      const found = await reconcileSends(pool, sendQueue, createLogger({ service: 'test', level: 'silent', nodeEnv: 'test' }), GRACE_SECONDS);
      expect(found).toBe(1_200);
      const queue = openQueue(queues.send, { connection: redis, prefix });
      try {
        const ids = (await queue.queue.getJobs(['wait', 'delayed'], 0, -1)).flatMap((job) => job.data.emailIds);
        expect(new Set(ids).size).toBe(1_200);
      } finally {
        await queue.close();
      }
    } finally {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      await sendQueue.close();
      redis.disconnect();
      await pool.end();
      await db.drop();
    }
  }, 60_000);
});

function sqlIsDue(g: string): string {
  return `(${g} > 59000 OR ${g} % 200 = 0)`;
}
