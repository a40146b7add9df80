import { MailroomError, randomToken, sha256Hex } from '@mailroom/core';
import type { Database } from '@mailroom/db';
import type { Principal } from './auth-context';

const TOKEN_PATTERN = /^mr_[A-Za-z0-9_-]{43}$/;
// lastUsedAt is a hint for people, not an audit log: write it at most once a minute per key.
const LAST_USED_WRITE_MS = 60_000;

/** A new API token: `mr_` and 32 random bytes, base64url. Only its SHA-256 is ever stored. */
export function generateApiToken(): { token: string; tokenHash: string; tokenStart: string } {
  const token = `mr_${randomToken(32)}`;
  return { token, tokenHash: sha256Hex(token), tokenStart: token.slice(0, 7) };
}

/**
 * Resolves a bearer token to its key. The database is asked on every request, so a revocation
 * is seen at once by every gateway replica. The lookup is by hash on a unique index; the token
 * itself is never compared.
 */
export class ApiTokenVerifier {
  private readonly lastUsedWrites = new Map<string, number>();

  constructor(private readonly db: Database) {}

  async verify(token: string): Promise<Extract<Principal, { kind: 'token' }>> {
    if (!TOKEN_PATTERN.test(token)) throw invalidApiKey();
    const key = await this.db.apiKey.findUnique({
      where: { tokenHash: sha256Hex(token) },
      select: { id: true, projectId: true, permission: true, revokedAt: true },
    });
    if (!key || key.revokedAt) throw invalidApiKey();
    this.touch(key.id);
    return { kind: 'token', keyId: key.id, projectId: key.projectId, permission: key.permission };
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
