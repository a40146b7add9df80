import {
  createRedis,
  DependencyUnavailableError,
  isUnavailableError,
  MAINTENANCE_STATEMENT_TIMEOUT_MS,
  type Config,
  type Logger,
  type Redis,
} from '@mailroom/core';
import { createDatabase, type Database } from '../client';
import { createPool, type Pool } from '../pool';
import { resolveSecretKey } from '../settings';
import { expectedMigration, MigrationCheck } from './migration-check';

// Connections of the maintenance pool: its tasks run one at a time per process (two, so a
// caller running one by hand does not wait for the schedule's).
const MAINTENANCE_POOL_SIZE = 2;

/** A service's connections to PostgreSQL and Redis, and the installation's master secret. */
export interface Backends {
  /** Prisma, for the few queries that read better through it. */
  db: Database;
  /** pg, for hot paths and transactions; each statement within DATABASE_STATEMENT_TIMEOUT_MS. */
  pool: Pool;
  /**
   * pg for maintenance (the stats rollup, retention), whose statements may run
   * MAINTENANCE_STATEMENT_TIMEOUT_MS; connects only when used.
   */
  maintenancePool: Pool;
  /** Readiness's schema check: the database has the newest migration of prisma/migrations. */
  migrations: MigrationCheck;
  /** Connected; `request` connections fail fast, `worker` connections wait through reconnects. */
  redis: Redis;
  secretKey: string;
  /** Closes every connection (after the service stopped using them). */
  close(): Promise<void>;
}

export interface BackendOptions {
  logger: Logger;
  /** pg connections (default 10). */
  poolSize?: number;
  /** Prisma's own pool (default: Prisma's). */
  prismaPoolSize?: number;
  /** How the Redis connection behaves (default `request`). */
  redisKind?: 'request' | 'worker';
}

/**
 * Connects a service to PostgreSQL and Redis, both of which must answer at start; later
 * outages are survived by the service. A failure to reach either becomes
 * `DependencyUnavailableError`, whose message names the URL (without its password) and how to
 * start them, and nothing is left open.
 */
export async function connectBackends(config: Readonly<Config>, options: BackendOptions): Promise<Backends> {
  // Read before connecting: a build without its migrations folder stops here, saying so.
  const expected = expectedMigration();
  const statementTimeoutMs = config.databaseStatementTimeoutMs;
  const db = createDatabase(config.databaseUrl, { statementTimeoutMs, ...(options.prismaPoolSize ? { poolSize: options.prismaPoolSize } : {}) });
  const pool = createPool(config.databaseUrl, options.poolSize ?? 10, { statementTimeoutMs });
  const maintenancePool = createPool(config.databaseUrl, MAINTENANCE_POOL_SIZE, {
    statementTimeoutMs: Math.max(statementTimeoutMs, MAINTENANCE_STATEMENT_TIMEOUT_MS),
  });
  const redisKind = options.redisKind ?? 'request';
  const redis = createRedis(config.redisUrl, redisKind, { logger: options.logger, role: redisKind === 'request' ? 'requests' : 'workers' });
  const closeAll = async () => {
    redis.disconnect();
    await Promise.all([db.$disconnect(), pool.end(), maintenancePool.end()]);
  };
  let secretKey: string;
  try {
    secretKey = await pool.query('SELECT 1').then(() => resolveSecretKey(db, config.secretKey));
  } catch (err) {
    await closeAll();
    throw isUnavailableError(err) ? new DependencyUnavailableError('PostgreSQL', config.databaseUrl, { cause: err }) : err;
  }
  try {
    await redis.connect();
  } catch (err) {
    await closeAll();
    throw new DependencyUnavailableError('Redis', config.redisUrl, { cause: err });
  }
  const migrations = new MigrationCheck(pool, expected, options.logger.child({ component: 'migrations' }));
  return { db, pool, maintenancePool, redis, migrations, secretKey, close: closeAll };
}
