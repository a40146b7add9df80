import { createRedis, DependencyUnavailableError, isUnavailableError, type Config, type Logger, type Redis } from '@mailroom/core';
import { createDatabase, type Database } from '../client';
import { createPool, type Pool } from '../pool';
import { resolveSecretKey } from '../settings';

/** A service's connections to PostgreSQL and Redis, and the installation's master secret. */
export interface Backends {
  /** Prisma, for the few queries that read better through it. */
  db: Database;
  /** pg, for hot paths and transactions. */
  pool: Pool;
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
  const db = createDatabase(config.databaseUrl, options.prismaPoolSize ? { poolSize: options.prismaPoolSize } : {});
  const pool = createPool(config.databaseUrl, options.poolSize ?? 10);
  const redis = createRedis(config.redisUrl, options.redisKind ?? 'request');
  redis.on('error', (err: Error) => options.logger.warn({ err: err.message }, 'redis connection error'));
  const closeAll = async () => {
    redis.disconnect();
    await Promise.all([db.$disconnect(), pool.end()]);
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
  return { db, pool, redis, secretKey, close: closeAll };
}
