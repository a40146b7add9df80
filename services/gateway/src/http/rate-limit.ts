import type { IncomingMessage } from 'node:http';
import { answerWithin, clientAddress, clientBlock, GroupCommit, MailroomError, type Redis } from '@mailroom/core';
import type { Response } from 'express';

export interface RateLimits {
  /** Per project (or per user for session calls outside a project), RATE_LIMIT_PER_SECOND. */
  perProject: RateLimiter | null;
  /** Sign-in and sign-up attempts per client (loginClientKey). */
  perLoginIp: RateLimiter;
}

/** Where one request stands in its key's current window. */
export interface WindowState {
  /** Requests counted in this window so far, this one included. */
  consumed: number;
  msBeforeReset: number;
}

interface Consumption {
  key: string;
  state?: WindowState;
}

// Requests counted by one script call at most (each distinct key among them costs the script
// a few commands).
const MAX_PER_CALL = 1_000;
// The in-memory fallback forgets windows that ended once it holds this many keys.
const MEMORY_SWEEP_AT = 10_000;
// How long a count waits for Redis before it is made in memory (ms). Redis answers in about a
// millisecond; one that hangs (frozen, partitioned) would otherwise hold every request for the
// connection's 2 s command timeout, and the requests batched behind it for as long again.
export const REDIS_COUNT_WITHIN_MS = 500;

// For each key: open the window if none is open, add this call's count, report the total and
// the time left. KEYS are the counters; ARGV[1] is the window in seconds, ARGV[i + 1] the count
// for KEYS[i].
const CONSUME_SCRIPT = `
local window = tonumber(ARGV[1])
local out = {}
for i, key in ipairs(KEYS) do
  redis.call('set', key, 0, 'EX', window, 'NX')
  local consumed = redis.call('incrby', key, ARGV[i + 1])
  local ttl = redis.call('pttl', key)
  if ttl < 0 then
    redis.call('expire', key, window)
    ttl = window * 1000
  end
  out[i] = {consumed, ttl}
end
return out`;

type ConsumeCommand = (...args: (string | number)[]) => Promise<[number, number][]>;

/**
 * Fixed-window counters in Redis, shared by every replica. Consumptions that arrive while a
 * call to Redis is in flight go together in the next one (one script call, one INCRBY per
 * distinct key), so a busy gateway pays one round trip per batch instead of one per request.
 * Each request still gets the count it would have had alone: its place within its key's
 * batch. While Redis is unreachable, or does not answer within REDIS_COUNT_WITHIN_MS, each
 * replica counts in memory rather than failing (or holding) requests that need no Redis.
 */
export class RateLimiter {
  private readonly batches: GroupCommit<Consumption>;
  private readonly memory = new Map<string, { consumed: number; resetAt: number }>();
  private readonly command: ConsumeCommand;

  constructor(
    redis: Redis,
    private readonly keyPrefix: string,
    /** Requests allowed per window. */
    readonly points: number,
    private readonly windowSeconds: number,
  ) {
    const name = 'mailroomRateLimitConsume';
    if (!(name in redis)) redis.defineCommand(name, { lua: CONSUME_SCRIPT });
    this.command = (redis as unknown as Record<string, ConsumeCommand>)[name]!.bind(redis);
    this.batches = new GroupCommit((items) => this.count(items), MAX_PER_CALL);
  }

  /** Counts one request against `key`. */
  async consume(key: string): Promise<WindowState> {
    const consumption: Consumption = { key };
    await this.batches.submit([consumption]);
    return consumption.state as WindowState;
  }

  private async count(items: Consumption[]): Promise<void> {
    const byKey = new Map<string, Consumption[]>();
    for (const item of items) {
      const same = byKey.get(item.key);
      if (same) same.push(item);
      else byKey.set(item.key, [item]);
    }
    const keys = [...byKey.keys()];
    const counts = keys.map((key) => byKey.get(key)!.length);
    const totals = await this.countInRedis(keys, counts).catch(() => this.countInMemory(keys, counts));
    keys.forEach((key, k) => {
      const [total, msBeforeReset] = totals[k]!;
      const same = byKey.get(key)!;
      const first = total - same.length;
      same.forEach((item, i) => {
        item.state = { consumed: first + i + 1, msBeforeReset };
      });
    });
  }

  private async countInRedis(keys: string[], counts: number[]): Promise<[number, number][]> {
    const redisKeys = keys.map((key) => `${this.keyPrefix}:${key}`);
    return answerWithin(this.command(keys.length, ...redisKeys, this.windowSeconds, ...counts), REDIS_COUNT_WITHIN_MS);
  }

  private countInMemory(keys: string[], counts: number[]): [number, number][] {
    const now = Date.now();
    if (this.memory.size >= MEMORY_SWEEP_AT) {
      for (const [key, window] of this.memory) if (window.resetAt <= now) this.memory.delete(key);
    }
    return keys.map((key, k) => {
      let window = this.memory.get(key);
      if (!window || window.resetAt <= now) {
        window = { consumed: 0, resetAt: now + this.windowSeconds * 1000 };
        this.memory.set(key, window);
      }
      window.consumed += counts[k]!;
      return [window.consumed, window.resetAt - now];
    });
  }
}

export function createRateLimits(redis: Redis, prefix: string, limits: { perSecond: number; loginPerMinute: number }): RateLimits {
  return {
    perProject: limits.perSecond > 0 ? new RateLimiter(redis, `${prefix}:ratelimit:project`, limits.perSecond, 1) : null,
    perLoginIp: new RateLimiter(redis, `${prefix}:ratelimit:login`, limits.loginPerMinute, 60),
  };
}

/** Counts one request against `key`, sets the `ratelimit-*` headers, and throws 429 past the limit. */
export async function consumeRateLimit(limiter: RateLimiter, key: string, res: Response): Promise<void> {
  const { consumed, msBeforeReset } = await limiter.consume(key);
  const resetSeconds = Math.max(0, Math.ceil(msBeforeReset / 1000));
  res.setHeader('ratelimit-limit', String(limiter.points));
  res.setHeader('ratelimit-remaining', String(Math.max(0, limiter.points - consumed)));
  res.setHeader('ratelimit-reset', String(resetSeconds));
  if (consumed <= limiter.points) return;
  res.setHeader('retry-after', String(Math.max(1, resetSeconds)));
  throw new MailroomError('rate_limit_exceeded', 'Too many requests; slow down and retry after the time in Retry-After.');
}

/**
 * Whose sign-in budget a request spends: its client address (behind a trusted proxy, the one
 * that proxy appended to X-Forwarded-For; GATEWAY_TRUST_PROXY), an IPv6 client's whole /64,
 * since one end site holds at least that many addresses and could otherwise try passwords from
 * each of them.
 */
export function loginClientKey(req: IncomingMessage, trustProxy: boolean): string {
  return clientBlock(clientAddress(req, trustProxy) ?? 'unknown');
}

/**
 * Counts a sign-in attempt that never got as far as its handler (its headers or body stalled),
 * so stalling is no free way to try passwords. Never throws: there is no answer to refuse.
 */
export function countStalledLogin(limits: RateLimits, key: string): void {
  limits.perLoginIp.consume(key).catch(() => undefined);
}
