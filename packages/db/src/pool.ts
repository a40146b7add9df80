import { Pool, type PoolClient, type QueryResultRow, types } from 'pg';

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

/**
 * A plain node-postgres pool for the hot paths (accepting sends, recording outcomes), where
 * one multi-row statement replaces many ORM calls. Everything else goes through Prisma.
 */
export function createPool(databaseUrl: string, size = 10): Pool {
  const pool = new Pool({ connectionString: databaseUrl, max: size, connectionTimeoutMillis: 3_000, options: SESSION_OPTIONS, types: TYPES });
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
