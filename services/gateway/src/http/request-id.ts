import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

/**
 * Gives every response an `X-Request-Id` (DESIGN §4), also written in its log line. Always our
 * own: an id sent by the client is not taken, so no caller can make its requests share an id
 * with another's in the logs. (A trusted proxy's id can be passed through once one exists.)
 */
export function assignRequestId(): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('X-Request-Id', newRequestId());
    next();
  };
}

export function newRequestId(): string {
  return randomUUID();
}
