import { loadConfig, type Redis } from '@mailroom/core';
import { createPool, type Pool } from '@mailroom/db';
import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { testEnv } from '../../../test/support/gateway';
import { TcpProxy } from '../../../test/support/tcp-proxy';
import { until } from '../../../test/support/until';
import { startTracking, type RunningTracking } from '../src';
import { adminRedis, deleteKeys, spilledEvents } from './spill-support';
import { get, insertTrackedEmail, tokens } from './support';

/**
 * A TCP proxy in front of PostgreSQL that, while armed, lets a transaction's COMMIT through and
 * then cuts the connection as the reply starts back: the transaction committed, the client
 * only sees its connection lost.
 */
class CommitReplyDropper {
  armed = 0;
  dropped = 0;
  private readonly proxy = new TcpProxy('127.0.0.1', 5432, {
    tap: () => {
      let committing = false;
      return {
        toServer: (chunk) => {
          if (this.armed > 0 && chunk.includes('COMMIT\0')) {
            this.armed -= 1;
            committing = true;
          }
          return true;
        },
        toClient: (_chunk, cut) => {
          if (!committing) return true;
          this.dropped += 1;
          cut();
          return false;
        },
      };
    },
  });

  get port(): number {
    return this.proxy.port;
  }

  async start(): Promise<this> {
    await this.proxy.start();
    return this;
  }

  stop(): Promise<void> {
    return this.proxy.stop();
  }
}

describe('the tracking service when PostgreSQL connections are lost', () => {
  let database: TestDatabase;
  let pool: Pool;
  let tracking: RunningTracking | null = null;
  let redis: Redis;
  const prefixes: string[] = [];
  beforeAll(async () => {
    database = await createTestDatabase('trkpgkill');
    pool = createPool(database.url, 3);
    redis = await adminRedis();
  });
  afterAll(async () => {
    await tracking?.stop();
    for (const prefix of prefixes) await deleteKeys(redis, prefix);
    redis.disconnect();
    await pool.end();
    await database.drop();
  });

  const counts = async (emailId: string) =>
    (await pool.query<{ events: number; opens: number }>({
      text: `SELECT (SELECT count(*)::int FROM email_events WHERE email_id = $1 AND type = 'email.opened') AS events,
                    (SELECT sum(opens)::int FROM email_recipients WHERE email_id = $1) AS opens`,
      values: [emailId],
    })).rows[0];

  /** A tracking service whose PostgreSQL connections go through `dropper`, writing only when told to. */
  async function startBehind(dropper: CommitReplyDropper, options: { maxSpilled?: number } = {}): Promise<{ tracking: RunningTracking; prefix: string }> {
    const env = testEnv({ ...database, url: database.url.replace(':5432/', `:${dropper.port}/`) }, { TRACKING_PORT: '0' });
    prefixes.push(env.QUEUE_PREFIX as string);
    const started = await startTracking(loadConfig(env), { host: '127.0.0.1', flushIntervalMs: 3_600_000, spillIntervalMs: 3_600_000, ...options });
    return { tracking: started, prefix: env.QUEUE_PREFIX as string };
  }

  /**
   * 30 opens answered by a service behind a CommitReplyDropper, then the buffer's first write
   * committed with its reply lost; `check` looks at what follows, and everything is stopped after.
   */
  async function withLostCommitReply(subject: string, options: { maxSpilled?: number }, check: (run: { tracking: RunningTracking; prefix: string; emailId: string }) => Promise<void>) {
    const { emailId, recipientId } = await insertTrackedEmail(pool, subject);
    const dropper = await new CommitReplyDropper().start();
    const started = await startBehind(dropper, options);
    tracking = started.tracking;
    const url = `${tracking.url}/o/${tokens.sign({ kind: 'open', emailId, recipientId })}`;
    try {
      const statuses = await Promise.all(Array.from({ length: 30 }, () => get(url)));
      expect(statuses.filter((s) => s === 200)).toHaveLength(30);
      dropper.armed = 1;
      await tracking.buffer.flush();
      expect(dropper.dropped).toBe(1);
      await check({ ...started, emailId });
    } finally {
      await tracking.stop();
      tracking = null;
      await dropper.stop();
    }
  }

  test('when a batch commits but the reply to its COMMIT is lost and the spill takes nothing, then the retry from memory records nothing twice: one event and one count per open answered', async () => {
    await withLostCommitReply('Lost reply', { maxSpilled: 0 }, async ({ tracking, emailId }) => {
      expect(tracking.buffer.size).toBe(30);
      // The batch is in PostgreSQL, though the service could not know.
      expect(await counts(emailId)).toEqual({ events: 30, opens: 30 });
      await tracking.buffer.flush();
      expect(tracking.buffer.size).toBe(0);
      expect(await counts(emailId)).toEqual({ events: 30, opens: 30 });
    });
  });

  test('when a batch commits but the reply to its COMMIT is lost, then it goes to the spill, and its drain records nothing twice', async () => {
    await withLostCommitReply('Lost reply spilled', {}, async ({ tracking, prefix, emailId }) => {
      expect(tracking.buffer.size).toBe(0);
      expect(await spilledEvents(redis, prefix)).toBe(30);
      expect(await counts(emailId)).toEqual({ events: 30, opens: 30 });
      await tracking.drainer.drain();
      expect(await spilledEvents(redis, prefix)).toBe(0);
      expect(await counts(emailId)).toEqual({ events: 30, opens: 30 });
    });
  });

  test('when every connection of the database is terminated again and again while opens flow, then each open answered is written exactly once', async () => {
    const emails = await Promise.all(Array.from({ length: 4 }, (_, i) => insertTrackedEmail(pool, `Killed ${i}`)));
    const env = testEnv(database, { TRACKING_PORT: '0' });
    prefixes.push(env.QUEUE_PREFIX as string);
    tracking = await startTracking(loadConfig(env), { host: '127.0.0.1', flushIntervalMs: 20, writeAt: 10, spillIntervalMs: 20 });
    const urls = emails.map(({ emailId, recipientId }) => `${(tracking as RunningTracking).url}/o/${tokens.sign({ kind: 'open', emailId, recipientId })}`);
    const killer = new Client({ connectionString: database.url });
    await killer.connect();
    let kills = 0;
    let killing = true;
    // Only this test's database, never another's; the killer's own connection is spared.
    const killLoop = (async () => {
      while (killing) {
        const { rowCount } = await killer.query({
          text: 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          values: [database.name],
        });
        kills += rowCount ?? 0;
        await new Promise((resolve) => setTimeout(resolve, 37));
      }
    })();
    const answered = new Map<string, number>(emails.map((e) => [e.emailId, 0]));
    for (let round = 0; round < 60; round++) {
      const statuses = await Promise.all(urls.flatMap((url, i) => Array.from({ length: 5 }, async () => [i, await get(url)] as const)));
      for (const [i, status] of statuses) if (status === 200) answered.set(emails[i]?.emailId as string, (answered.get(emails[i]?.emailId as string) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    killing = false;
    await killLoop;
    await killer.end();
    expect(kills).toBeGreaterThan(10);
    expect([...answered.values()].reduce((a, b) => a + b, 0)).toBe(1_200);
    // What a terminated write spilled is drained from Redis alongside.
    await until(async () => (tracking as RunningTracking).buffer.size === 0 && (await spilledEvents(redis, env.QUEUE_PREFIX as string)) === 0, 20_000, 'the buffer and the spill to drain');
    await tracking.stop();
    tracking = null;
    for (const { emailId } of emails) expect(await counts(emailId)).toEqual({ events: answered.get(emailId), opens: answered.get(emailId) });
  }, 90_000);
});
