import { randomBytes } from 'node:crypto';
import { createRedis, type Redis } from '@mailroom/core';
import { RateLimiter } from '../src/http/rate-limit';

// The limiter on its own, against the real Redis: batching must not change anyone's count.
describe('RateLimiter', () => {
  let redis: Redis;
  const prefix = `mrtest-${randomBytes(4).toString('hex')}:ratelimit`;
  beforeAll(async () => {
    redis = createRedis('redis://127.0.0.1:6379', 'request');
    await redis.connect();
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  test('when many requests arrive at once, then each gets its own place in the window, exactly as if sent one by one', async () => {
    const limiter = new RateLimiter(redis, `${prefix}:a`, 5, 60);
    const states = await Promise.all(Array.from({ length: 40 }, (_, i) => limiter.consume(i % 2 === 0 ? 'even' : 'odd')));
    const consumedOf = (parity: number) => states.filter((_, i) => i % 2 === parity).map((s) => s.consumed).sort((a, b) => a - b);
    expect(consumedOf(0)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(consumedOf(1)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    for (const state of states) {
      expect(state.msBeforeReset).toBeGreaterThan(55_000);
      expect(state.msBeforeReset).toBeLessThanOrEqual(60_000);
    }
    expect(await redis.get(`${prefix}:a:even`)).toBe('20');
  });

  test('when two replicas share a key, then their counts add up in Redis', async () => {
    const other = createRedis('redis://127.0.0.1:6379', 'request');
    await other.connect();
    try {
      const one = new RateLimiter(redis, `${prefix}:b`, 5, 60);
      const two = new RateLimiter(other, `${prefix}:b`, 5, 60);
      const states = await Promise.all([one.consume('p'), two.consume('p'), one.consume('p'), two.consume('p')]);
      expect(states.map((s) => s.consumed).sort()).toEqual([1, 2, 3, 4]);
    } finally {
      other.disconnect();
    }
  });

  test('when the window ends, then counting starts again', async () => {
    const limiter = new RateLimiter(redis, `${prefix}:c`, 2, 1);
    await Promise.all([limiter.consume('k'), limiter.consume('k'), limiter.consume('k')]);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await limiter.consume('k')).consumed).toBe(1);
  });

  test('when Redis is unreachable, then the replica counts in memory instead of failing', async () => {
    const down = createRedis('redis://127.0.0.1:1', 'request');
    try {
      const limiter = new RateLimiter(down, `${prefix}:d`, 3, 60);
      const states = await Promise.all(Array.from({ length: 4 }, () => limiter.consume('k')));
      expect(states.map((s) => s.consumed).sort()).toEqual([1, 2, 3, 4]);
      expect((await limiter.consume('k')).consumed).toBe(5);
      expect((await limiter.consume('other')).consumed).toBe(1);
    } finally {
      down.disconnect();
    }
  });
});
