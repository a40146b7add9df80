import { MailroomError, randomToken } from '@mailroom/core';
import { isSessionRevoked, revokeSession, type Database } from '@mailroom/db';
import { jwtVerify, SignJWT } from 'jose';

const ISSUER = 'mailroom';
const AUDIENCE = 'mailroom-console';
// Every claim a session must carry: a token without an expiry would be valid forever, one
// without an id could never be signed out.
const REQUIRED_CLAIMS = ['sub', 'jti', 'iat', 'exp'];

/** A verified console session. */
export interface Session {
  userId: string;
  /** The JWT `jti`: what signing out revokes. */
  sessionId: string;
  expiresAt: Date;
}

/**
 * Console session tokens: JWTs (HS256 with the session sub-key) with `sub` = user id, `jti`,
 * `iat` and `exp`. Signed-out sessions are kept in PostgreSQL until they expire and looked up
 * on every session request (one primary-key read, no per-replica cache), so signing out
 * takes effect on every replica at once.
 */
export class SessionTokens {
  constructor(
    private readonly db: Database,
    private readonly key: Uint8Array,
    private readonly ttlSeconds: number,
  ) {}

  async issue(userId: string): Promise<{ token: string; session: Session }> {
    const issuedAt = Math.floor(Date.now() / 1000);
    const session: Session = { userId, sessionId: randomToken(16), expiresAt: new Date((issuedAt + this.ttlSeconds) * 1000) };
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setJti(session.sessionId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + this.ttlSeconds)
      .sign(this.key);
    return { token, session };
  }

  /** The session of a valid token; 401 `invalid_session` for a tampered, foreign, incomplete, expired or signed-out one. */
  async verify(token: string): Promise<Session> {
    let session: Session;
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: AUDIENCE,
        requiredClaims: REQUIRED_CLAIMS,
      });
      if (typeof payload.sub !== 'string' || payload.sub === '' || typeof payload.jti !== 'string' || payload.jti === '') {
        throw new Error('empty subject or id');
      }
      session = { userId: payload.sub, sessionId: payload.jti, expiresAt: new Date((payload.exp as number) * 1000) };
    } catch (err) {
      throw invalidSession(err);
    }
    if (await isSessionRevoked(this.db, session.sessionId)) throw invalidSession();
    return session;
  }

  /** Signs the session out on every replica. */
  async revoke(session: Session): Promise<void> {
    await revokeSession(this.db, { jti: session.sessionId, userId: session.userId, expiresAt: session.expiresAt });
  }
}

function invalidSession(cause?: unknown): MailroomError {
  return new MailroomError('invalid_session', 'The console session is invalid, has expired or was signed out; sign in again.', { cause });
}
