import { isUnavailableError, loadConfig, createLogger } from '@mailroom/core';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { createPool } from './pool';
import { type Backends, connectBackends } from './service';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase('pool_timeouts');
});

afterAll(async () => {
  await database.drop();
});

describe('the statement timeout of the application pools', () => {
  let backends: Backends;

  beforeAll(async () => {
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: database.url, DATABASE_STATEMENT_TIMEOUT_MS: '1000', SECRET_KEY: 'k'.repeat(40) });
    backends = await connectBackends(config, { logger: createLogger({ service: 'test', level: 'silent' }) });
  });
  afterAll(() => backends.close());

  test('when a statement runs past DATABASE_STATEMENT_TIMEOUT_MS, then PostgreSQL cancels it (57014) and it is unavailability (503), on pg and on Prisma', async () => {
    const pg = await backends.pool.query('SELECT pg_sleep(3)').catch((err: unknown) => err);
    expect(pg).toMatchObject({ code: '57014' });
    expect(isUnavailableError(pg)).toBe(true);
    const prisma = await backends.db.$queryRaw`SELECT pg_sleep(3)`.catch((err: unknown) => err);
    expect(prisma).toBeInstanceOf(Error);
    expect(isUnavailableError(prisma)).toBe(true);
  });

  test('when maintenance (stats rollup, retention) runs a long statement, then its pool lets it run, up to 10 minutes', async () => {
    const { rows } = await backends.maintenancePool.query<{ statement_timeout: string }>('SHOW statement_timeout');
    expect(rows[0]?.statement_timeout).toBe('10min');
    await expect(backends.maintenancePool.query('SELECT pg_sleep(1.5)')).resolves.toMatchObject({ rowCount: 1 });
  });
});

describe('a connection whose statement is never answered', () => {
  test('when the client gives up waiting (read timeout), then the connection is dropped, not handed out again behind the lost statement', async () => {
    const pool = createPool(database.url, 1);
    try {
      const client = await pool.connect();
      // As a frozen server does: the answer does not come before the client's read timeout.
      const err = await client.query({ text: 'SELECT pg_sleep(2)', query_timeout: 200 } as { text: string }).catch((e: unknown) => e);
      expect(err).toMatchObject({ message: 'Query read timeout' });
      expect(isUnavailableError(err)).toBe(true);
      // Released without an error, as a transaction's client or Prisma's is.
      client.release();
      expect(pool.totalCount).toBe(0);
      const started = Date.now();
      await expect(pool.query('SELECT 1 AS one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
      // On a new connection, not queued behind the 2 s sleep.
      expect(Date.now() - started).toBeLessThan(1_500);
    } finally {
      await pool.end();
    }
  });
});
