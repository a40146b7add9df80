import { createTestDatabase, type TestDatabase } from '../../../../test/support/databases';
import { appendEvents, type NewEvent } from '../events';
import { createPool, inTransaction, type Pool } from '../pool';
import { readStats } from './read-stats';
import { rollUpStats } from './roll-up-stats';

const PROJECT = 'proj_rollup';
const HOUR = new Date('2026-10-01T10:00:00Z');
const range = { projectId: PROJECT, from: HOUR, to: new Date(HOUR.getTime() + 3_600_000), interval: 'hour' as const };

const received = (n: number): NewEvent[] =>
  Array.from({ length: n }, () => ({ projectId: PROJECT, subject: { kind: 'received_email', receivedEmailId: 'inb_1' }, type: 'email.received', data: {}, createdAt: new Date('2026-10-01T10:30:00Z') }));

describe('the stats rollup', () => {
  let database: TestDatabase;
  let pool: Pool;
  beforeAll(async () => {
    database = await createTestDatabase('rollup');
    pool = createPool(database.url, 4);
  });
  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  const counted = async () => (await readStats(pool, range))[0]?.counts.received;
  const rolledUp = async () => Number((await pool.query<{ n: string }>({ text: "SELECT coalesce(sum(count), 0)::text AS n FROM stats_hourly WHERE type = 'email.received'" })).rows[0]?.n);

  test('when a transaction that began writing first commits after a later one, then the rollup waits for it, and /stats counts each event once at every step', async () => {
    // The early transaction takes its id and appends, and stays open.
    const early = await pool.connect();
    await early.query('BEGIN');
    await appendEvents(early, received(2));
    await inTransaction(pool, (client) => appendEvents(client, received(3)));

    // The later events are visible, but the rollup may not pass the open transaction.
    expect(await counted()).toBe(3);
    expect(await rollUpStats(pool, 100)).toEqual({ events: 0, busy: false });
    expect(await rolledUp()).toBe(0);
    expect(await counted()).toBe(3);

    await early.query('COMMIT');
    early.release();
    expect(await counted()).toBe(5);

    // Another test file's transaction on the same server may hold the horizon a moment.
    for (const deadline = Date.now() + 5_000; (await rolledUp()) < 5 && Date.now() < deadline; ) {
      await rollUpStats(pool, 2);
      expect(await counted()).toBe(5);
    }
    expect(await rolledUp()).toBe(5);
    expect(await counted()).toBe(5);
  });

  test('when a rollup fails midway, then neither its counts nor its cursor move, and the next one counts the events once', async () => {
    await inTransaction(pool, (client) => appendEvents(client, received(4)));
    const before = await rolledUp();
    // A crash between the upsert and the cursor move: the transaction rolls back as a whole.
    await pool.query({ text: "CREATE FUNCTION fail_cursor() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'crash'; END $$" });
    await pool.query({ text: "CREATE TRIGGER fail_cursor BEFORE UPDATE ON outbox_cursors FOR EACH ROW WHEN (NEW.consumer = 'stats') EXECUTE FUNCTION fail_cursor()" });
    // Another test file's transaction on the same server may hold the horizon a moment: the
    // rollup then reads nothing and moves nothing, and is tried again until it reaches the events.
    let failure: unknown = null;
    for (const deadline = Date.now() + 5_000; failure === null && Date.now() < deadline; ) {
      failure = await rollUpStats(pool, 100).then(
        () => null,
        (err: unknown) => err,
      );
      if (failure === null) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(failure).toEqual(expect.objectContaining({ message: expect.stringContaining('crash') }));
    await pool.query({ text: 'DROP TRIGGER fail_cursor ON outbox_cursors' });
    expect(await rolledUp()).toBe(before);
    expect(await counted()).toBe(9);

    for (const deadline = Date.now() + 5_000; (await rolledUp()) < 9 && Date.now() < deadline; ) await rollUpStats(pool, 100);
    expect(await rolledUp()).toBe(9);
    expect(await counted()).toBe(9);
  });
});
