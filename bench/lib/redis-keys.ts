import { createRedis } from '@mailroom/core';

/** Deletes every Redis key under `<prefix>:`; returns how many. */
export async function deleteRedisKeys(redisUrl: string, prefix: string): Promise<number> {
  const redis = createRedis(redisUrl, 'worker');
  redis.on('error', () => {});
  await redis.connect();
  let deleted = 0;
  try {
    const stream = redis.scanStream({ match: `${prefix}:*`, count: 1_000 });
    for await (const keys of stream as AsyncIterable<string[]>) {
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    }
  } finally {
    redis.disconnect();
  }
  return deleted;
}
