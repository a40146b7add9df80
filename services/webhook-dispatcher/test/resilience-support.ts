import { once } from 'node:events';
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Pool } from '@mailroom/db';
import type { Redis } from 'ioredis';
import { withAdminClient } from '../../../test/support/databases';
import { localPortsOf } from '../../../test/support/local-ports';

/** The application_name of a test's own pool: its backends are spared when the dispatcher's are terminated. */
export const TEST_APPLICATION = 'mailroom-resilience-test';

/**
 * Terminates every backend of the database `name` but the test's own (TEST_APPLICATION) and the
 * admin connection doing it; returns how many were terminated.
 */
export async function terminateBackends(name: string): Promise<number> {
  return withAdminClient(async (client) => {
    const { rows } = await client.query<{ killed: boolean }>({
      text: `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
              WHERE datname = $1 AND pid <> pg_backend_pid() AND application_name <> $2`,
      values: [name, TEST_APPLICATION],
    });
    return rows.filter((r) => r.killed).length;
  });
}

/**
 * Kills, with CLIENT KILL ID, the Redis connections of the process `pid` only (found by their
 * local ports in CLIENT LIST): other tests share this Redis. Returns how many were killed.
 */
export async function killRedisClientsOf(admin: Redis, pid: number): Promise<number> {
  const ports = localPortsOf(pid, 6379);
  const list = (await admin.client('LIST')) as string;
  let killed = 0;
  for (const line of list.split('\n')) {
    const id = /\bid=(\d+)/.exec(line)?.[1];
    const port = /\baddr=[^ ]*:(\d+)\b/.exec(line)?.[1];
    if (!id || !port || !ports.has(Number(port))) continue;
    killed += Number(await admin.client('KILL', 'ID', id));
  }
  return killed;
}

/**
 * A TCP proxy in front of Redis whose traffic can be held for a while, as CLIENT PAUSE would,
 * without pausing the server other tests share.
 */
export class PausableProxy {
  private server: Server | null = null;
  private readonly pairs = new Set<[Socket, Socket]>();
  private paused = false;
  port = 0;

  constructor(private readonly targetPort: number) {}

  async start(): Promise<this> {
    const server = createServer((client) => {
      const upstream = createConnection({ host: '127.0.0.1', port: this.targetPort });
      const pair: [Socket, Socket] = [client, upstream];
      this.pairs.add(pair);
      for (const s of pair) {
        s.on('close', () => {
          this.pairs.delete(pair);
          client.destroy();
          upstream.destroy();
        });
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      if (this.paused) for (const s of pair) s.pause();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Holds every byte both ways for `ms`, then lets it through. */
  async hold(ms: number): Promise<void> {
    this.paused = true;
    for (const pair of this.pairs) for (const s of pair) s.pause();
    await new Promise((resolve) => setTimeout(resolve, ms));
    this.paused = false;
    for (const pair of this.pairs) for (const s of pair) s.resume();
  }

  async stop(): Promise<void> {
    for (const pair of this.pairs) for (const s of pair) s.destroy();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** How many times each key occurs, for the keys that occur more than once. */
export function repeated(keys: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return new Map([...counts].filter(([, n]) => n > 1));
}

/**
 * Compares what receivers got with the attempt log: per (endpoint, event), posts on the wire
 * against attempt rows, and the successes. Answers the pairs that were posted more often than
 * recorded (a post the log does not know of: a duplicate that is no retry) or not exactly once
 * successfully.
 */
export async function unrecordedPosts(pool: Pool, posts: { webhookId: string; eventId: string }[]): Promise<string[]> {
  const webhookIds = [...new Set(posts.map((p) => p.webhookId))];
  const { rows } = await pool.query<{ key: string; attempts: number; successes: number }>({
    text: `SELECT event_id || ' ' || webhook_id AS key, count(*)::int AS attempts, count(*) FILTER (WHERE success)::int AS successes
             FROM webhook_attempts WHERE webhook_id = ANY($1) GROUP BY event_id, webhook_id`,
    values: [webhookIds],
  });
  const log = new Map(rows.map((r) => [r.key, r]));
  const wire = new Map<string, number>();
  for (const p of posts) wire.set(`${p.eventId} ${p.webhookId}`, (wire.get(`${p.eventId} ${p.webhookId}`) ?? 0) + 1);
  const wrong: string[] = [];
  for (const [key, n] of wire) {
    const row = log.get(key);
    if (!row || n > row.attempts || row.successes !== 1) wrong.push(`${key}: ${n} posts, ${row?.attempts ?? 0} attempts, ${row?.successes ?? 0} successes`);
  }
  return wrong;
}
