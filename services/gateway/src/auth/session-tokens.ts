import { MailroomError } from '@mailroom/core';
import { jwtVerify, SignJWT } from 'jose';

const ISSUER = 'mailroom';
const AUDIENCE = 'mailroom-console';

/** A console session token: a JWT (HS256 with the session sub-key), `sub` = user id. */
export async function issueSessionToken(key: Uint8Array, userId: string, ttlSeconds: number): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
    .sign(key);
}

/** The user id of a valid session token; 401 `invalid_session` for a tampered, foreign or expired one. */
export async function verifySessionToken(key: Uint8Array, token: string): Promise<string> {
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE });
    if (typeof payload.sub !== 'string' || payload.sub === '') throw new Error('no subject');
    return payload.sub;
  } catch (err) {
    throw new MailroomError('invalid_session', 'The console session is invalid or has expired; sign in again.', { cause: err });
  }
}
