import { MailroomError } from '@mailroom/core';
import type { Request } from 'express';
import type { Principal } from './auth-context';
import type { ApiTokenVerifier } from './api-tokens';
import type { SessionTokens } from './session-tokens';
import { singleHeader } from '../http/single-header';

/**
 * Who is calling. `Authorization` decides when present (the session headers are then ignored);
 * otherwise `X-Service-Session`; with neither, 401 `missing_api_key`. Several Authorization
 * headers are refused (403 `invalid_api_key`) rather than one of them picked.
 */
export async function authenticate(req: Request, tokens: ApiTokenVerifier, sessions: SessionTokens): Promise<Principal> {
  const authorization = singleHeader(req, 'authorization', () => new MailroomError('invalid_api_key', 'Send one Authorization header, not several.'));
  if (authorization !== undefined) {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) throw new MailroomError('invalid_api_key', 'The Authorization header must be "Bearer <API key>".');
    return tokens.verify(match[1]);
  }
  const session = req.get('x-service-session');
  if (session !== undefined) {
    return { kind: 'session', ...(await sessions.verify(session.trim())) };
  }
  throw new MailroomError(
    'missing_api_key',
    'Missing credentials: send "Authorization: Bearer <API key>", or "X-Service-Session" with "X-Project-Id".',
  );
}
