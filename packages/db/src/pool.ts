import { Pool, type PoolClient, type QueryResultRow } from 'pg';

export type { Pool, PoolClient };

/** Anything that runs a query: the pool, or one client inside a transaction. */
export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(config: { name?: string; text: string; values?: unknown[] }): Promise<{ rows: R[]; rowCount: number | null }>;
}

/**
 * A plain node-postgres pool for the hot paths (accepting sends, recording outcomes), where
 * one multi-row statement replaces many ORM calls. Everything else goes through Prisma.
 */
export function createPool(databaseUrl: string, size = 10): Pool {
  const pool = new Pool({ connectionString: databaseUrl, max: size, connectionTimeoutMillis: 3_000 });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  return pool;
}

/** Runs `work` in a transaction on one client of the pool. */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
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
