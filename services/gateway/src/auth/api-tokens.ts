import { answerWithin, MailroomError, randomToken, sha256Hex, type Logger, type Redis } from '@mailroom/core';
import { readApiKeyRevocationEpoch, type Database } from '@mailroom/db';
import type { Principal } from './auth-context';

type TokenPrincipal = Extract<Principal, { kind: 'token' }>;

const TOKEN_PATTERN = /^mr_[A-Za-z0-9_-]{43}$/;
// lastUsedAt is a hint for people, not an audit log: write it at most once a minute per key.
const LAST_USED_WRITE_MS = 60_000;
const MAX_CACHED_KEYS = 10_000;
// Keys whose last lastUsedAt write is remembered; see ApiTokenVerifier.touch.
const MAX_LAST_USED_KEYS = 10_000;
// A cached key is also re-read from PostgreSQL after this, whatever the epochs say.
const CACHE_TTL_MS = 30_000;
/**
 * How often each replica reads the revocation epoch from PostgreSQL. A replica trusts its
 * cache only while its last successful read is younger than REVOCATION_BOUND_MS, so a
 * revocation reaches every replica within that bound even when Redis is down anywhere.
 */
const EPOCH_POLL_MS = 1_000;
export const REVOCATION_BOUND_MS = 2 * EPOCH_POLL_MS;
// How long a request waits for the Redis epoch (ms) before it does without the cache, asking
// PostgreSQL: a Redis that hangs must not hold every request for its 2 s command timeout.
const EPOCH_READ_WITHIN_MS = 500;

/** A new API token: `mr_` and 32 random bytes, base64url. Only its SHA-256 is ever stored. */
export function generateApiToken(): { token: string; tokenHash: string; tokenStart: string } {
  const token = `mr_${randomToken(32)}`;
  return { token, tokenHash: sha256Hex(token), tokenStart: token.slice(0, 7) };
}

export interface ApiTokenVerifierOptions {
  db: Database;
  redis: Redis;
  /** QUEUE_PREFIX: the Redis epoch key lives under it. */
  prefix: string;
  logger: Logger;
  /** How many keys' last lastUsedAt write are remembered at most (default 10,000). */
  maxLastUsedKeys?: number;
}

/**
 * Resolves a bearer token to its key, by hash on a unique index (the token itself is never
 * compared). Verified keys are cached in the process, and the cache is emptied whenever a
 * revocation is announced:
 * - fast path: every request reads a revocation epoch from Redis, which each revocation
 *   increments (retried until Redis takes it), so a revoked key is refused by every replica on
 *   its next request;
 * - backstop: each revocation also bumps an epoch in PostgreSQL in its own transaction, which
 *   every replica polls every EPOCH_POLL_MS.
 * A replica that cannot read either epoch does not use its cache: every request asks PostgreSQL.
 */
export class ApiTokenVerifier {
  private readonly cache = new Map<string, { principal: TokenPrincipal; expiresAt: number }>();
  // Bumped at every emptying of the cache, so a lookup that raced one is not cached.
  private generation = 0;
  private cacheEpoch: string | null = null;
  // Key id → when its lastUsedAt was last written (ms), oldest write first.
  private readonly lastUsedWrites = new Map<string, number>();
  private readonly maxLastUsedKeys: number;
  private readonly epochKey: string;
  private nextEpochRead: Promise<string | null> | null = null;
  private databaseEpoch: bigint | null = null;
  // The cache is trusted until then: the last successful PostgreSQL epoch read plus the bound.
  private databaseEpochFreshUntil = 0;
  private redisBumpPending = false;
  private databaseReadFailing = false;
  private polling: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly db: Database;
  private readonly redis: Redis;
  private readonly logger: Logger;

  constructor(options: ApiTokenVerifierOptions) {
    this.db = options.db;
    this.redis = options.redis;
    this.logger = options.logger;
    this.maxLastUsedKeys = options.maxLastUsedKeys ?? MAX_LAST_USED_KEYS;
    this.epochKey = `${options.prefix}:api-keys:revocation-epoch`;
  }

  /** Reads the PostgreSQL epoch once, then keeps polling it. */
  async start(): Promise<void> {
    await this.poll();
    this.timer = setInterval(() => void this.poll(), EPOCH_POLL_MS);
    this.timer.unref();
  }

  /** Stops polling; resolves once a read in flight is over, so the database can be closed. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.polling;
  }

  async verify(token: string): Promise<TokenPrincipal> {
    if (!TOKEN_PATTERN.test(token)) throw invalidApiKey();
    const tokenHash = sha256Hex(token);
    const epoch = await this.readEpoch();
    const trusted = epoch !== null && Date.now() < this.databaseEpochFreshUntil;
    const cached = trusted ? this.cache.get(tokenHash) : undefined;
    if (cached && cached.expiresAt > Date.now()) return cached.principal;

    const generation = this.generation;
    const key = await this.db.apiKey.findUnique({
      where: { tokenHash },
      select: { id: true, projectId: true, permission: true, revokedAt: true },
    });
    if (!key || key.revokedAt) throw invalidApiKey();
    const principal: TokenPrincipal = { kind: 'token', keyId: key.id, projectId: key.projectId, permission: key.permission };
    if (trusted && generation === this.generation && epoch === this.cacheEpoch && this.cache.size < MAX_CACHED_KEYS) {
      this.cache.set(tokenHash, { principal, expiresAt: Date.now() + CACHE_TTL_MS });
    }
    this.touch(key.id);
    return principal;
  }

  /**
   * After a key's revocation is committed: empties this replica's cache and tells the others
   * through Redis. Never fails: if Redis is unreachable the bump is retried at every poll, and
   * meanwhile the PostgreSQL epoch reaches every replica within REVOCATION_BOUND_MS.
   */
  async announceRevocation(): Promise<void> {
    this.emptyCache();
    this.redisBumpPending = true;
    if (!(await this.bumpRedisEpoch())) {
      this.logger.warn('could not announce an API key revocation through Redis; retrying every second meanwhile');
    }
  }

  private async bumpRedisEpoch(): Promise<boolean> {
    try {
      await this.redis.incr(this.epochKey);
      this.redisBumpPending = false;
      return true;
    } catch {
      return false;
    }
  }

  private poll(): Promise<void> {
    this.polling ??= this.readDatabaseEpoch()
      .then(() => (this.redisBumpPending ? this.bumpRedisEpoch() : true))
      .then(() => undefined)
      .finally(() => {
        this.polling = null;
      });
    return this.polling;
  }

  private async readDatabaseEpoch(): Promise<void> {
    const startedAt = Date.now();
    try {
      const epoch = await readApiKeyRevocationEpoch(this.db);
      if (epoch !== this.databaseEpoch) {
        this.emptyCache();
        this.databaseEpoch = epoch;
      }
      // Measured from the start: a revocation committed after this read began may be unseen.
      this.databaseEpochFreshUntil = startedAt + REVOCATION_BOUND_MS;
      this.databaseReadFailing = false;
    } catch (err) {
      // Once per outage, not once a second.
      if (!this.databaseReadFailing) {
        this.logger.warn({ err: (err as Error).message }, 'cannot read the API key revocation epoch; not using cached keys meanwhile');
      }
      this.databaseReadFailing = true;
    }
  }

  private emptyCache(): void {
    this.cache.clear();
    this.generation++;
  }

  /**
   * The current Redis epoch. Requests arriving in the same event-loop turn share one read,
   * which is sent only after all of them arrived, so none can see an epoch older than its own
   * arrival.
   */
  private readEpoch(): Promise<string | null> {
    this.nextEpochRead ??= new Promise((resolve) => {
      setImmediate(() => {
        this.nextEpochRead = null;
        resolve(this.fetchEpoch());
      });
    });
    return this.nextEpochRead;
  }

  private async fetchEpoch(): Promise<string | null> {
    let epoch: string | null;
    try {
      epoch = (await answerWithin(this.redis.get(this.epochKey), EPOCH_READ_WITHIN_MS)) ?? '0';
    } catch {
      epoch = null;
    }
    if (epoch !== this.cacheEpoch) {
      this.emptyCache();
      this.cacheEpoch = epoch;
    }
    return epoch;
  }

  /**
   * Writes the key's lastUsedAt, at most once per LAST_USED_WRITE_MS. The writes are remembered
   * in write order; past maxLastUsedKeys, those older than LAST_USED_WRITE_MS are forgotten (they
   * hold no key back), then if need be the oldest others: such a key is written once more early.
   */
  private touch(keyId: string): void {
    const now = Date.now();
    if (now - (this.lastUsedWrites.get(keyId) ?? 0) < LAST_USED_WRITE_MS) return;
    this.lastUsedWrites.delete(keyId);
    this.lastUsedWrites.set(keyId, now);
    if (this.lastUsedWrites.size > this.maxLastUsedKeys) {
      for (const [id, writtenAt] of this.lastUsedWrites) {
        if (this.lastUsedWrites.size <= this.maxLastUsedKeys && now - writtenAt < LAST_USED_WRITE_MS) break;
        this.lastUsedWrites.delete(id);
      }
    }
    this.db.apiKey.update({ where: { id: keyId }, data: { lastUsedAt: new Date(now) } }).catch(() => {
      // Best effort: a failed hint must not fail the request.
    });
  }
}

function invalidApiKey(): MailroomError {
  return new MailroomError('invalid_api_key', 'The API key is malformed, unknown or revoked.');
}
