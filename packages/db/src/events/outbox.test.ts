import { createRedis, EventQueue, openQueue, queues } from '@mailroom/core';
import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/databases';
import { createPool, inTransaction, type Pool, type PoolClient } from '../pool';
import { appendEvents, JsonText, type NewEvent } from './append-events';
import { presentEvent } from './present-event';
import { OUTBOX_START, type OutboxCursor, readOutbox } from './read-outbox';
import { reconcileOutbox } from './reconcile-outbox';

const received = (receivedEmailId: string, extra: Partial<NewEvent> = {}): NewEvent => ({
  projectId: 'proj_test',
  subject: { kind: 'received_email', receivedEmailId },
  type: 'email.received',
  data: { email_id: receivedEmailId, from: 'ada@example.test', to: ['in@acme.test'], subject: 'Hi', route_id: 'rt_1', created_at: '2026-11-22T10:00:00.000Z' },
  ...extra,
});

/** A follower as a dispatcher would be one: it keeps its cursor and remembers what it saw. */
class Follower {
  cursor: OutboxCursor = OUTBOX_START;
  readonly seen: string[] = [];
  constructor(private readonly pool: Pool) {}
  async poll(): Promise<string[]> {
    const page = await readOutbox(this.pool, this.cursor, 1000);
    this.cursor = page.cursor;
    const ids = page.events.map((e) => e.id);
    this.seen.push(...ids);
    return ids;
  }
  /**
   * Polls until `count` events arrived (or 5 s passed): a writing transaction of another test
   * on the same server, running at that instant, holds the horizon back for a moment.
   */
  async pollFor(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (const deadline = Date.now() + 5_000; ids.length < count && Date.now() < deadline; ) {
      ids.push(...(await this.poll()));
      if (ids.length < count) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return ids;
  }
}

/** A transaction on its own connection, held open until `commit()` or `rollback()`. */
async function openTransaction(pool: Pool): Promise<{ client: PoolClient; commit(): Promise<void>; rollback(): Promise<void> }> {
  const client = await pool.connect();
  await client.query('BEGIN');
  const end = async (how: string) => {
    await client.query(how);
    client.release();
  };
  return { client, commit: () => end('COMMIT'), rollback: () => end('ROLLBACK') };
}

describe('the event outbox', () => {
  let database: TestDatabase;
  // Two pools, as two processes would have: no connection is shared between writers.
  let first: Pool;
  let second: Pool;

  beforeAll(async () => {
    database = await createTestDatabase('outbox');
    first = createPool(database.url, 4);
    second = createPool(database.url, 4);
  });
  afterAll(async () => {
    await Promise.all([first.end(), second.end()]);
    await database.drop();
  });
  beforeEach(async () => {
    await first.query({ text: 'DELETE FROM email_events' });
  });

  test('when a transaction holding an earlier position commits after a later one, then the follower sees every event once, in commit order', async () => {
    const follower = new Follower(first);
    // B takes its transaction id first; A then draws the lower position and stays open.
    const b = await openTransaction(second);
    await b.client.query({ text: 'SELECT pg_current_xact_id()' });
    const a = await openTransaction(first);
    const [late] = await appendEvents(a.client, [received('inb_late')]);
    const early = await appendEvents(b.client, [received('inb_b1'), received('inb_b2')]);
    await b.commit();

    expect(await follower.pollFor(2)).toEqual(early);
    await a.commit();
    expect(await follower.pollFor(1)).toEqual([late]);
    // The trap a plain position cursor falls into: the late event sits below what was already read.
    const positions = await first.query<{ id: string }>({ text: 'SELECT id FROM email_events ORDER BY position' });
    expect(positions.rows.map((r) => r.id)).toEqual([late, ...early]);
    expect(await follower.poll()).toEqual([]);
    expect(follower.seen).toEqual([...early, late as string]);
  });

  test('when the transaction that began writing first stays open, then later commits wait behind it and none is skipped', async () => {
    const follower = new Follower(first);
    const a = await openTransaction(first);
    const [held] = await appendEvents(a.client, [received('inb_held')]);
    const later = await inTransaction(second, (client) => appendEvents(client, [received('inb_after')]));

    expect(await follower.poll()).toEqual([]);
    await a.commit();
    expect(await follower.pollFor(2)).toEqual([held, ...later]);
    expect(await follower.poll()).toEqual([]);
  });

  test('when two processes append concurrently while a follower polls, then it sees every committed event exactly once and no rolled-back one', async () => {
    const follower = new Follower(first);
    const committed: string[] = [];
    const rolledBack: string[] = [];
    let writing = true;
    const writer = async (pool: Pool, name: string) => {
      for (let i = 0; i < 25; i++) {
        const tx = await openTransaction(pool);
        const ids = await appendEvents(tx.client, [received(`inb_${name}_${i}_a`), received(`inb_${name}_${i}_b`)]);
        await new Promise((resolve) => setTimeout(resolve, (i * 7) % 13));
        if (i % 10 === 9) {
          await tx.rollback();
          rolledBack.push(...ids);
        } else {
          await tx.commit();
          committed.push(...ids);
        }
      }
    };
    const polling = (async () => {
      while (writing) {
        await follower.poll();
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
    })();
    await Promise.all([writer(first, 'one'), writer(second, 'two')]);
    writing = false;
    await polling;
    await follower.pollFor(committed.length - follower.seen.length);

    expect(new Set(follower.seen).size).toBe(follower.seen.length);
    expect([...follower.seen].sort()).toEqual([...committed].sort());
    expect(follower.seen.filter((id) => rolledBack.includes(id))).toEqual([]);
    // A transaction's events arrive together and in the order they were appended.
    for (let i = 0; i < follower.seen.length; i += 2) {
      expect(follower.seen[i + 1]).toBe(committed[committed.indexOf(follower.seen[i] as string) + 1]);
    }
  });

  test('when a follower reads many events in small pages, then it gets each once in position order (numbers, not text)', async () => {
    // Positions 996…1020 cross from three digits to four, where text order differs from numeric order.
    await first.query({ text: "SELECT setval(pg_get_serial_sequence('email_events', 'position'), 995)" });
    const appended = await inTransaction(first, (client) => appendEvents(client, Array.from({ length: 25 }, (_, i) => received(`inb_page_${i}`))));
    const follower = new Follower(first);
    await new Follower(first).pollFor(25);
    const seen: string[] = [];
    for (let page = await readOutbox(first, follower.cursor, 7); page.events.length > 0; page = await readOutbox(first, page.cursor, 7)) {
      seen.push(...page.events.map((e) => e.id));
    }
    expect(seen).toEqual(appended);
  });

  test('when an email.received event is appended, then it needs no email row and is presented in the form of DESIGN §5', async () => {
    const createdAt = new Date('2026-11-22T10:00:01.000Z');
    const [id] = await inTransaction(first, (client) => appendEvents(client, [received('inb_01', { id: 'evt_received', createdAt })]));
    const follower = new Follower(first);
    await follower.pollFor(1);
    const { events } = await readOutbox(first, OUTBOX_START, 10);

    expect(id).toBe('evt_received');
    expect(events[0]?.subject).toEqual({ kind: 'received_email', receivedEmailId: 'inb_01' });
    expect(presentEvent(events[0] as NonNullable<(typeof events)[0]>)).toEqual({
      id: 'evt_received',
      type: 'email.received',
      created_at: '2026-11-22T10:00:01.000Z',
      data: { email_id: 'inb_01', from: 'ada@example.test', to: ['in@acme.test'], subject: 'Hi', route_id: 'rt_1', created_at: '2026-11-22T10:00:00.000Z' },
    });
  });

  test('when a webhook.test event is appended, then the outbox gives it with its endpoint as subject', async () => {
    await inTransaction(first, (client) =>
      appendEvents(client, [{ projectId: 'proj_test', subject: { kind: 'webhook', webhookId: 'wh_1' }, type: 'webhook.test', data: { message: 'test' } }]),
    );
    await new Follower(first).pollFor(1);
    const { events } = await readOutbox(first, OUTBOX_START, 10);
    expect(events.map((e) => [e.type, e.subject])).toEqual([['webhook.test', { kind: 'webhook', webhookId: 'wh_1' }]]);
  });

  test('when events of every subject are appended in one call, then each row has its own subject column and source key set and the others NULL', async () => {
    const subjects: NewEvent['subject'][] = [
      { kind: 'received_email', receivedEmailId: 'inb_1' },
      { kind: 'webhook', webhookId: 'wh_1' },
      { kind: 'domain', domainId: 'dom_1' },
    ];
    await inTransaction(first, (client) =>
      appendEvents(client, subjects.map((subject, i) => ({ projectId: 'proj_test', subject, type: 'webhook.test', data: { n: i }, sourceKey: i === 0 ? 'inb_report' : null }))),
    );
    const { rows } = await first.query<Record<string, string | null>>({
      text: 'SELECT email_id, recipient, received_email_id, webhook_id, domain_id, source_key, data->>\'n\' AS n FROM email_events ORDER BY position',
    });
    const none = { email_id: null, recipient: null, received_email_id: null, webhook_id: null, domain_id: null, source_key: null };
    expect(rows).toEqual([
      { ...none, received_email_id: 'inb_1', source_key: 'inb_report', n: '0' },
      { ...none, webhook_id: 'wh_1', n: '1' },
      { ...none, domain_id: 'dom_1', n: '2' },
    ]);
  });

  test('when event fields hold backslashes, tabs, newlines, quotes and non-ASCII text, then each is stored exactly as given', async () => {
    const odd = 'a\\b\tc\nd\re "q" \\N \\. é 日本 😀';
    const data = { subject: odd, nested: { list: [odd, '\\'] } };
    const [id] = await inTransaction(first, (client) =>
      appendEvents(client, [{ projectId: 'proj_test', subject: { kind: 'email', emailId: 'em_odd', recipient: `"${odd}"@example.test` }, type: 'email.opened', data, sourceKey: odd }]),
    );
    const [withText] = await inTransaction(first, (client) =>
      appendEvents(client, [{ projectId: 'proj_test', subject: { kind: 'webhook', webhookId: 'wh_odd' }, type: 'webhook.test', data: new JsonText(`{\n\t"subject": ${JSON.stringify(odd)}\n}`) }]),
    );
    const { rows } = await first.query<{ id: string; recipient: string | null; source_key: string | null; data: unknown }>({
      text: 'SELECT id, recipient, source_key, data FROM email_events WHERE id = ANY($1::text[]) ORDER BY position',
      values: [[id, withText]],
    });
    expect(rows).toEqual([
      { id, recipient: `"${odd}"@example.test`, source_key: odd, data },
      { id: withText, recipient: null, source_key: null, data: { subject: odd } },
    ]);
  });

  test('when PostgreSQL refuses a row, then appendEvents rejects, nothing of the batch is stored and the connection stays usable', async () => {
    const client = await first.connect();
    try {
      await client.query('BEGIN');
      const good = received('inb_refused_batch');
      const bad: NewEvent = { ...good, data: new JsonText('{"not json') };
      await expect(appendEvents(client, [good, bad])).rejects.toThrow(/json/i);
      await client.query('ROLLBACK');
      expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      client.release();
    }
    const { rows } = await first.query({ text: "SELECT id FROM email_events WHERE received_email_id = 'inb_refused_batch'" });
    expect(rows).toEqual([]);
  });

  describe('with the events queue', () => {
    const redis = createRedis('redis://127.0.0.1:6379', 'worker');
    const prefix = `mrtest-${randomBytes(4).toString('hex')}`;
    let eventQueue: EventQueue;
    let queue: ReturnType<typeof openQueue<typeof queues.events.payload>>['queue'];

    beforeAll(() => {
      eventQueue = new EventQueue(redis, prefix);
      queue = openQueue(queues.events, { connection: redis, prefix }).queue;
    });
    afterAll(async () => {
      await queue.obliterate({ force: true });
      await Promise.all([eventQueue.close(), queue.close()]);
      redis.disconnect();
    });
    beforeEach(() => queue.obliterate({ force: true }));

    test('when events wait after the follower cursor, then the reconciler notifies once; when it has caught up, then it does not', async () => {
      await inTransaction(first, (client) => appendEvents(client, [received('inb_waiting')]));
      const follower = new Follower(first);
      await new Follower(first).pollFor(1);

      expect(await reconcileOutbox(first, eventQueue, follower.cursor)).toBe(true);
      expect((await queue.getWaiting()).map((j) => j.data)).toEqual([{ reason: 'reconcile' }]);

      await follower.poll();
      expect(await reconcileOutbox(first, eventQueue, follower.cursor)).toBe(false);
      expect(await queue.getWaitingCount()).toBe(1);
    });

    test('when a producer notifies after its commit, then the events queue holds a wake-up', async () => {
      await eventQueue.notify();
      expect((await queue.getWaiting()).map((j) => j.data)).toEqual([{ reason: 'appended' }]);
    });
  });
});
