import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from '@mailroom/core';
import type { EngagementHit } from '@mailroom/db';
import { SpillFullError } from './spill-full-error';

export interface EngagementSpillOptions {
  redis: Redis;
  /** QUEUE_PREFIX: the spill's keys live under `<prefix>:tracking:spill`, one spill per deployment. */
  prefix: string;
  /** This process's name among the drainers (default host name, pid and a random suffix). */
  owner?: string;
  /** Events the spill holds at most; a batch arriving when it is full is refused (default 500,000). */
  maxSpilled?: number;
  /** How long a claim stays this process's without being renewed, in ms (default 10,000). */
  leaseMs?: number;
}

/** What `claim()` hands over: the hits of this process's claim, and how many events the spill holds. */
export interface SpillClaim {
  hits: EngagementHit[];
  /** Events in the spill, claims of every process included (the claim just made too). */
  total: number;
  /** Entries of the claim that were no spilled hit, left out (and removed with the claim). */
  unreadable: number;
}

// About 350 bytes an open in Redis (a click, its link more): ~175 MB at the bound.
const DEFAULT_MAX_SPILLED = 500_000;
const DEFAULT_LEASE_MS = 10_000;

// Lua's unpack() takes a few thousand values at most: lists are pushed this many at a time.
const LUA_HELPERS = `
local function append(key, items)
  for i = 1, #items, 1000 do redis.call('RPUSH', key, unpack(items, i, math.min(i + 999, #items))) end
end
local function prepend(key, items)
  local i = #items
  while i >= 1 do
    local lo = math.max(1, i - 999)
    local part = {}
    for j = i, lo, -1 do part[#part + 1] = items[j] end
    redis.call('LPUSH', key, unpack(part))
    i = lo - 1
  end
end
local function now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

// KEYS: spill. ARGV: bound, entries… Returns the spill's length, or -1 when it is full (nothing pushed).
const PUSH = `${LUA_HELPERS}
if redis.call('LLEN', KEYS[1]) >= tonumber(ARGV[1]) then return -1 end
local items = {}
for i = 2, #ARGV do items[#items + 1] = ARGV[i] end
append(KEYS[1], items)
return redis.call('LLEN', KEYS[1])`;

// KEYS: spill, claims, this process's claim. ARGV: owner, lease ms, most entries, prefix of claim keys.
// Claims whose owner stopped renewing them go back to the head of the spill, oldest first; then this
// process's own claim is returned if it still has one (written but not removed, or a claim whose
// reply was lost), or the spill's oldest entries become it. Returns {events in the spill, claim entries}.
const CLAIM = `${LUA_HELPERS}
local t = now()
for _, owner in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', t)) do
  if owner ~= ARGV[1] then
    local key = ARGV[4] .. owner
    prepend(KEYS[1], redis.call('LRANGE', key, 0, -1))
    redis.call('DEL', key)
    redis.call('ZREM', KEYS[2], owner)
  end
end
local mine = redis.call('LRANGE', KEYS[3], 0, -1)
if #mine == 0 then
  mine = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[3]) - 1)
  if #mine > 0 then
    append(KEYS[3], mine)
    redis.call('LTRIM', KEYS[1], #mine, -1)
  end
end
if #mine > 0 then redis.call('ZADD', KEYS[2], t + tonumber(ARGV[2]), ARGV[1]) else redis.call('ZREM', KEYS[2], ARGV[1]) end
local total = redis.call('LLEN', KEYS[1])
for _, owner in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do total = total + redis.call('LLEN', ARGV[4] .. owner) end
return {total, mine}`;

// KEYS: claims. ARGV: owner, lease ms. Extends a claim still this process's.
const RENEW = `${LUA_HELPERS}
return redis.call('ZADD', KEYS[1], 'XX', now() + tonumber(ARGV[2]), ARGV[1])`;

// KEYS: spill, claims, this process's claim. ARGV: owner. Gives the claim back, at the head of the spill.
const RELEASE = `${LUA_HELPERS}
prepend(KEYS[1], redis.call('LRANGE', KEYS[3], 0, -1))
redis.call('DEL', KEYS[3])
return redis.call('ZREM', KEYS[2], ARGV[1])`;

// KEYS: spill, claims, this process's claim. ARGV: owner. Gives the claim back, at the end of the spill.
const REQUEUE = `${LUA_HELPERS}
append(KEYS[1], redis.call('LRANGE', KEYS[3], 0, -1))
redis.call('DEL', KEYS[3])
return redis.call('ZREM', KEYS[2], ARGV[1])`;

/**
 * The Redis side of the engagement buffer: batches PostgreSQL did not take are pushed onto one
 * list per deployment (oldest at the head), and drained from it by any replica. A drainer
 * `claim()`s the oldest entries atomically, moving them to a list of its own (its claim, leased
 * and renewed), writes them, and only then `finish()`es, removing the claim; a claim whose owner
 * died is put back at the head of the spill by the next claim after its lease ran out. An entry
 * may so be written twice (a commit whose removal never happened), never lost: the events keep
 * their ids, and the drain skips those already in the outbox.
 */
export class EngagementSpill {
  readonly owner: string;
  private readonly spillKey: string;
  private readonly claimsKey: string;
  private readonly claimPrefix: string;
  private readonly claimKey: string;
  private readonly maxSpilled: number;
  private readonly leaseMs: number;

  constructor(private readonly options: EngagementSpillOptions) {
    this.owner = options.owner ?? `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
    this.spillKey = `${options.prefix}:tracking:spill`;
    this.claimsKey = `${this.spillKey}:claims`;
    this.claimPrefix = `${this.spillKey}:claim:`;
    this.claimKey = `${this.claimPrefix}${this.owner}`;
    this.maxSpilled = options.maxSpilled ?? DEFAULT_MAX_SPILLED;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  }

  /** Appends the hits (each with its `eventId`), all or none; rejects with SpillFullError at the bound, or Redis's error. Returns the spill's length. */
  async push(hits: readonly EngagementHit[]): Promise<number> {
    if (hits.length === 0) return 0;
    const length = Number(await this.options.redis.eval(PUSH, 1, this.spillKey, this.maxSpilled, ...hits.map(encodeHit)));
    if (length < 0) throw new SpillFullError(this.maxSpilled);
    return length;
  }

  /** This process's claim: the one it still holds, or up to `max` of the oldest entries, moved atomically. */
  async claim(max: number): Promise<SpillClaim> {
    const [total, entries] = (await this.options.redis.eval(CLAIM, 3, this.spillKey, this.claimsKey, this.claimKey, this.owner, this.leaseMs, max, this.claimPrefix)) as [
      number,
      string[],
    ];
    const hits: EngagementHit[] = [];
    for (const entry of entries) {
      const hit = decodeHit(entry);
      if (hit) hits.push(hit);
    }
    return { hits, total: Number(total), unreadable: entries.length - hits.length };
  }

  /** Keeps this process's claim its own for another lease. */
  async renew(): Promise<void> {
    await this.options.redis.eval(RENEW, 1, this.claimsKey, this.owner, this.leaseMs);
  }

  /** Removes this process's claim: call once its events are committed. */
  async finish(): Promise<void> {
    await this.options.redis.multi().del(this.claimKey).zrem(this.claimsKey, this.owner).exec();
  }

  /** Gives this process's claim back to the spill, first in line (its write failed). */
  async release(): Promise<void> {
    await this.options.redis.eval(RELEASE, 3, this.spillKey, this.claimsKey, this.claimKey, this.owner);
  }

  /** Gives this process's claim back to the spill, last in line (it keeps failing alone: the rest go first). */
  async requeue(): Promise<void> {
    await this.options.redis.eval(REQUEUE, 3, this.spillKey, this.claimsKey, this.claimKey, this.owner);
  }
}

/** A spilled hit as JSON, its time as epoch ms. */
export function encodeHit(hit: EngagementHit): string {
  return JSON.stringify({ ...hit, at: hit.at.getTime() });
}

/** The hit a spill entry holds, or null for one that is not a spilled hit. */
export function decodeHit(entry: string): EngagementHit | null {
  let value: unknown;
  try {
    value = JSON.parse(entry);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const nullableText = (x: unknown) => x === null || typeof x === 'string';
  if (
    (v.kind !== 'open' && v.kind !== 'click') ||
    typeof v.emailId !== 'string' ||
    typeof v.recipientId !== 'string' ||
    typeof v.eventId !== 'string' ||
    (v.link !== undefined && typeof v.link !== 'string') ||
    !nullableText(v.ipAddress) ||
    !nullableText(v.userAgent) ||
    typeof v.isBot !== 'boolean' ||
    typeof v.at !== 'number'
  )
    return null;
  return {
    kind: v.kind,
    emailId: v.emailId,
    recipientId: v.recipientId,
    ...(v.link === undefined ? {} : { link: v.link as string }),
    ipAddress: v.ipAddress as string | null,
    userAgent: v.userAgent as string | null,
    isBot: v.isBot,
    at: new Date(v.at),
    eventId: v.eventId,
  };
}
