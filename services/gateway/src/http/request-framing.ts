import { MailroomError } from '@mailroom/core';
import type { RequestHandler } from 'express';

/**
 * HTTP/1.1 requires a Host header (RFC 9112 §3.2: a request without one gets 400). Node can
 * refuse it itself, but with a bare 400 and no body; the server is started with
 * `requireHostHeader: false` so the refusal is ours: the contract's JSON, with X-Request-Id,
 * answered as the parser's other framing errors are (400 `invalid_json`, connection closed).
 */
export function requireHostHeader(): RequestHandler {
  return (req, res, next) => {
    if (req.httpVersion !== '1.1' || req.headers.host !== undefined) return next();
    res.setHeader('Connection', 'close');
    next(new MailroomError('invalid_json', 'An HTTP/1.1 request must carry a Host header.'));
  };
}
