import type { IncomingMessage } from 'node:http';
import { MailroomError } from '../errors';

/**
 * HTTP/1.1 requires a Host header (RFC 9112 §3.2: a request without one gets 400). Node can
 * refuse it itself, but with a bare 400 and no body; our servers start with
 * `requireHostHeader: false` and refuse it with this instead: the contract's JSON, answered as
 * the parser's other framing errors are (400 `invalid_json`, the connection closed).
 */
export function missingHostHeader(req: IncomingMessage): MailroomError | null {
  if (req.httpVersion !== '1.1' || req.headers.host !== undefined) return null;
  return new MailroomError('invalid_json', 'An HTTP/1.1 request must carry a Host header.');
}
