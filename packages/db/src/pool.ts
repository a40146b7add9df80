import { createHash } from 'node:crypto';
import { DEFAULT_STATEMENT_TIMEOUT_MS } from '@mailroom/core';
import { Pool, type PoolClient, type PoolConfig, type QueryResultRow, types } from 'pg';
import { ReadTimeoutClient } from './read-timeout-client';

export type { Pool, PoolClient };

/**
 * Every connection's session runs in UTC. `timestamp` columns hold UTC wall times (as Prisma
 * writes them), and PostgreSQL turns `now()` or a column default into one in the session's zone,
 * which is the server's `timezone` setting: initdb copies the host's, so any other zone would
 * shift every such time by its offset. Given to the Prisma client's pool too.
 */
export const SESSION_OPTIONS = '-c TimeZone=UTC';

const TIMESTAMP_OID = 1114;
const readTimestamp = types.getTypeParser(TIMESTAMP_OID, 'text');
// A `timestamp` (no zone) read as the UTC wall time it holds, not in this process's zone (TZ),
// which node-postgres would use; `infinity` and BC dates are left to its own parser.
const TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMP_OID && format !== 'binary'
      ? (text: string) => readTimestamp(/\d$/.test(text) ? `${text}Z` : text)
      : types.getTypeParser(oid, format)) as typeof types.getTypeParser,
};

/** Anything that runs a query: the pool, or one client inside a transaction. */
export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(config: { name?: string; text: string; values?: unknown[] }): Promise<{ rows: R[]; rowCount: number | null }>;
}

// Fail fast while PostgreSQL is down (or every connection is busy) so requests answer 503
// instead of hanging: the longest a connection, or a free one from the pool, is waited for.
const CONNECT_TIMEOUT_MS = 3_000;
// How much longer than the statement timeout the client waits for an answer before it gives up
// on the connection (ms): PostgreSQL's own cancellation, which leaves the connection usable,
// normally answers first; this is for a server that cannot answer at all.
const READ_TIMEOUT_MARGIN_MS = 2_000;

/**
 * Connection settings of every application pool, the Prisma client's too. Each statement may
 * run `statementTimeoutMs`: PostgreSQL cancels it past that (statement_timeout, SQLSTATE 57014,
 * waiting for a lock included), and a server that does not answer at all (frozen, partitioned)
 * is given up on READ_TIMEOUT_MARGIN_MS later, its connection dropped. Both are
 * `service_unavailable` to callers. A transaction left idle for twice as long (its process
 * frozen, partitioned away, or stuck between two statements) is ended by PostgreSQL with its
 * session (idle_in_transaction_session_timeout), so the row locks it holds do not stop every
 * other replica until TCP gives up on it, hours later. No transaction of ours waits on anything
 * but PostgreSQL between its statements. The migration runner has pools of its own, without
 * any of these.
 */
export function applicationPoolConfig(databaseUrl: string, size: number, statementTimeoutMs: number): PoolConfig {
  return {
    connectionString: databaseUrl,
    max: size,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // Beside the time zone, as one startup option, so whatever passes that on passes this on.
    options: `${SESSION_OPTIONS} -c statement_timeout=${statementTimeoutMs} -c idle_in_transaction_session_timeout=${2 * statementTimeoutMs}`,
    query_timeout: statementTimeoutMs + READ_TIMEOUT_MARGIN_MS,
    Client: ReadTimeoutClient,
  };
}

export interface PoolOptions {
  /** DATABASE_STATEMENT_TIMEOUT_MS (default 30 s); see applicationPoolConfig. */
  statementTimeoutMs?: number;
}

/**
 * A plain node-postgres pool for the hot paths (accepting sends, recording outcomes), where
 * one multi-row statement replaces many ORM calls. Everything else goes through Prisma.
 */
export function createPool(databaseUrl: string, size = 10, options: PoolOptions = {}): Pool {
  const pool = new Pool({ ...applicationPoolConfig(databaseUrl, size, options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS), types: TYPES });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  // Nor a client that loses it while checked out (a transaction in progress): pg then emits
  // 'error' on the client itself, which the pool hears only while the client is idle, and an
  // unheard 'error' ends the process. The query in flight fails, and its caller sees that.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/**
 * Runs `work` in a read-only transaction whose statements all see one snapshot (REPEATABLE
 * READ): for reads of several statements that must agree, such as a cursor and what it covers.
 */
export async function inSnapshot<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(pool, work, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
}

/** Runs `work` in a transaction on one client of the pool. */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * Runs `work` while this process holds the PostgreSQL advisory lock named `key` (a session lock,
 * on a client of the pool kept for the while, so it may span an HTTP exchange), or answers
 * `{locked: false}` at once when another holds it: work that must not run twice at the same time,
 * on any replica. A process that dies loses its connection, and the lock with it.
 */
export async function withTryLock<T>(pool: Pool, key: string, work: () => Promise<T>): Promise<{ locked: true; value: T } | { locked: false }> {
  const hash = createHash('sha256').update(key).digest();
  const ids = [hash.readInt32BE(0), hash.readInt32BE(4)];
  const client = await pool.connect();
  // Set when the lock's own statements fail: the connection is dropped then (which unlocks it).
  let broken: Error | undefined;
  try {
    const locked = await client
      .query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::int, $2::int) AS locked', ids)
      .then(({ rows }) => rows[0]?.locked === true)
      .catch((err: Error) => {
        broken = err;
        throw err;
      });
    if (!locked) return { locked: false };
    try {
      return { locked: true, value: await work() };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1::int, $2::int)', ids).catch((err: Error) => {
        broken = err;
      });
    }
  } finally {
    client.release(broken);
  }
}
