import { Redis, type RedisOptions } from 'ioredis';

/**
 * A Redis connection. `kind: 'worker'` suits BullMQ workers (commands wait through
 * reconnects); `kind: 'request'` suits request paths, which must fail fast and answer 503.
 */
export function createRedis(url: string, kind: 'worker' | 'request', extra: RedisOptions = {}): Redis {
  const base: RedisOptions =
    kind === 'worker'
      ? { maxRetriesPerRequest: null, enableReadyCheck: false }
      : { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000, commandTimeout: 2_000 };
  return new Redis(url, { ...base, lazyConnect: true, ...extra });
}

export type { Redis };
