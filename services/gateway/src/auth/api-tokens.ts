import { MailroomError, randomToken, sha256Hex, type Redis } from '@mailroom/core';
import type { Database } from '@mailroom/db';
import type { Principal } from './auth-context';

type TokenPrincipal = Extract<Principal, { kind: 'token' }>;

const TOKEN_PATTERN = /^mr_[A-Za-z0-9_-]{43}$/;
// lastUsedAt is a hint for people, not an audit log: write it at most once a minute per key.
const LAST_USED_WRITE_MS = 60_000;
const MAX_CACHED_KEYS = 10_000;
// Backstop: a revocation whose epoch bump was lost in a Redis outage still lands within this.
const CACHE_TTL_MS = 30_000;

/** A new API token: `mr_` and 32 random bytes, base64url. Only its SHA-256 is ever stored. */
export function generateApiToken(): { token: string; tokenHash: string; tokenStart: string } {
  const token = `mr_${randomToken(32)}`;
  return { token, tokenHash: sha256Hex(token), tokenStart: token.slice(0, 7) };
}

/**
 * Resolves a bearer token to its key, by hash on a unique index (the token itself is never
 * compared). Verified keys are cached in the process; every request reads a revocation epoch
 * from Redis, which each revocation increments, and a changed epoch empties the cache — so a
 * revoked key is refused by every replica on its next request. Without Redis the cache is
 * emptied and every request asks PostgreSQL; entries also expire after 30 s as a backstop.
 */
export class ApiTokenVerifier {
  private readonly cache = new Map<string, { principal: TokenPrincipal; expiresAt: number }>();
  private cacheEpoch: string | null = null;
  private readonly lastUsedWrites = new Map<string, number>();
  private readonly epochKey: string;
  private nextEpochRead: Promise<string | null> | null = null;

  constructor(private readonly db: Database, private readonly redis: Redis, prefix: string) {
    this.epochKey = `${prefix}:api-keys:revocation-epoch`;
  }

  async verify(token: string): Promise<TokenPrincipal> {
    if (!TOKEN_PATTERN.test(token)) throw invalidApiKey();
    const tokenHash = sha256Hex(token);
    const epoch = await this.readEpoch();
    const cached = epoch !== null ? this.cache.get(tokenHash) : undefined;
    if (cached && cached.expiresAt > Date.now()) return cached.principal;

    const key = await this.db.apiKey.findUnique({
      where: { tokenHash },
      select: { id: true, projectId: true, permission: true, revokedAt: true },
    });
    if (!key || key.revokedAt) throw invalidApiKey();
    const principal: TokenPrincipal = { kind: 'token', keyId: key.id, projectId: key.projectId, permission: key.permission };
    if (epoch !== null && epoch === this.cacheEpoch && this.cache.size < MAX_CACHED_KEYS) this.cache.set(tokenHash, { principal, expiresAt: Date.now() + CACHE_TTL_MS });
    this.touch(key.id);
    return principal;
  }

  /** After a key is revoked in PostgreSQL: every replica drops its cache on its next request. */
  async announceRevocation(): Promise<void> {
    this.cache.clear();
    await this.redis.incr(this.epochKey);
  }

  /**
   * The current epoch. Requests arriving in the same event-loop turn share one read, which is
   * sent only after all of them arrived, so none can see an epoch older than its own arrival.
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
      epoch = (await this.redis.get(this.epochKey)) ?? '0';
    } catch {
      epoch = null;
    }
    if (epoch !== this.cacheEpoch) {
      this.cache.clear();
      this.cacheEpoch = epoch;
    }
    return epoch;
  }

  private touch(keyId: string): void {
    const now = Date.now();
    if (now - (this.lastUsedWrites.get(keyId) ?? 0) < LAST_USED_WRITE_MS) return;
    this.lastUsedWrites.set(keyId, now);
    this.db.apiKey.update({ where: { id: keyId }, data: { lastUsedAt: new Date(now) } }).catch(() => {
      // Best effort: a failed hint must not fail the request.
    });
  }
}

function invalidApiKey(): MailroomError {
  return new MailroomError('invalid_api_key', 'The API key is malformed, unknown or revoked.');
}
