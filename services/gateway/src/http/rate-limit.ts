import { MailroomError, type Redis } from '@mailroom/core';
import type { Response } from 'express';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

export interface RateLimits {
  /** Per project (or per user for session calls outside a project), RATE_LIMIT_PER_SECOND. */
  perProject: RateLimiterRedis | null;
  /** Sign-in and sign-up attempts per client IP. */
  perLoginIp: RateLimiterRedis;
}


/**
 * Counters live in Redis so every replica shares them. While Redis is unreachable each replica
 * falls back to its own in-memory counter rather than failing requests that need no Redis.
 */
export function createRateLimits(redis: Redis, prefix: string, limits: { perSecond: number; loginPerMinute: number }): RateLimits {
  const limiter = (keyPrefix: string, points: number, duration: number) =>
    new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}:ratelimit:${keyPrefix}`,
      points,
      duration,
      insuranceLimiter: new RateLimiterMemory({ points, duration }),
    });
  return {
    perProject: limits.perSecond > 0 ? limiter('project', limits.perSecond, 1) : null,
    perLoginIp: limiter('login', limits.loginPerMinute, 60),
  };
}

/** Counts one request against `key`, sets the `ratelimit-*` headers, and throws 429 past the limit. */
export async function consumeRateLimit(limiter: RateLimiterRedis, key: string, res: Response): Promise<void> {
  try {
    const state = await limiter.consume(key);
    setHeaders(res, limiter.points, state);
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw err;
    setHeaders(res, limiter.points, err);
    res.setHeader('retry-after', String(Math.max(1, Math.ceil(err.msBeforeNext / 1000))));
    throw new MailroomError('rate_limit_exceeded', 'Too many requests; slow down and retry after the time in Retry-After.');
  }
}

function setHeaders(res: Response, limit: number, state: RateLimiterRes): void {
  res.setHeader('ratelimit-limit', String(limit));
  res.setHeader('ratelimit-remaining', String(Math.max(0, state.remainingPoints)));
  res.setHeader('ratelimit-reset', String(Math.max(0, Math.ceil(state.msBeforeNext / 1000))));
}
