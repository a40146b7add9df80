import { createRedis, DependencyUnavailableError, isUnavailableError, redactUrl } from '@mailroom/core';
import { Client } from 'pg';

// Fail fast: a stopped server refuses at once, an unroutable one should not stall start-up for long.
const CONNECT_TIMEOUT_MS = 5_000;

/** A dependency answered, but not in a way that lets Mailroom start (bad credentials, for instance). */
export class DependencyRejectedError extends Error {
  override readonly name = 'DependencyRejectedError';
}

function detail(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) return detail(err.errors[0]);
  return err instanceof Error && err.message !== '' ? err.message.replace(/\.$/, '') : String(err);
}

/**
 * Connects to the server's `postgres` maintenance database: the target database may not exist
 * yet (the migration step creates it), but the server must be reachable.
 */
export async function checkPostgres(databaseUrl: string): Promise<void> {
  const maintenance = new URL(databaseUrl);
  maintenance.pathname = '/postgres';
  const client = new Client({ connectionString: maintenance.toString(), connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    if (isUnavailableError(err)) throw new DependencyUnavailableError('PostgreSQL', databaseUrl, { cause: err });
    throw new DependencyRejectedError(`PostgreSQL at ${redactUrl(databaseUrl)} refused the connection (${detail(err)}).`, { cause: err });
  } finally {
    await client.end().catch(() => {});
  }
}

/** One PING with no reconnect attempts, so a stopped Redis is reported at once. */
export async function checkRedis(redisUrl: string): Promise<void> {
  // No logger: a failure is this function's answer, not a log line.
  const redis = createRedis(redisUrl, 'request', { ioredis: { retryStrategy: () => null, connectTimeout: CONNECT_TIMEOUT_MS } });
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    if (/NOAUTH|WRONGPASS|NOPERM/.test(detail(err))) {
      throw new DependencyRejectedError(`Redis at ${redactUrl(redisUrl)} refused the connection (${detail(err)}).`, { cause: err });
    }
    throw new DependencyUnavailableError('Redis', redisUrl, { cause: err });
  } finally {
    redis.disconnect();
  }
}
