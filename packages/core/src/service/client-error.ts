import { randomUUID } from 'node:crypto';
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { MailroomError } from '../errors';
import type { Logger } from '../logger';

/**
 * Answers what Node's HTTP parser refuses before express sees a request (a header section over
 * the size limit, Content-Length with Transfer-Encoding, a malformed request line, headers that
 * did not arrive in time) with the contract's JSON, an `X-Request-Id`, and `Connection: close`.
 * For the `clientError` event of every HTTP server of ours (the gateway, tracking, the ops endpoints).
 */
export function answerClientError(
  logger: Logger,
  /** Runs when a request's headers did not arrive in time, with the client's address. */
  onHeadersTimeout?: (remoteAddress: string | undefined) => void,
): (err: Error & { code?: string }, socket: Socket) => void {
  return (err, socket) => {
    const error = toClientError(err.code);
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') onHeadersTimeout?.(socket.remoteAddress);
    // As Node itself does: write only if the socket can take it and no response has begun.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error && socket.writable && !inFlight?.headersSent) {
      const requestId = randomUUID();
      const body = JSON.stringify(error.toBody());
      socket.end(
        `HTTP/1.1 ${error.statusCode} ${STATUS_CODES[error.statusCode]}\r\n` +
          'Content-Type: application/json; charset=utf-8\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          `X-Request-Id: ${requestId}\r\n` +
          'Connection: close\r\n\r\n' +
          body,
        () => socket.destroy(),
      );
      logger.info({ requestId, code: err.code, status: error.statusCode }, 'request refused by the HTTP parser');
    } else {
      socket.destroy();
    }
  };
}

function toClientError(code: string | undefined): MailroomError | null {
  switch (code) {
    // The peer is gone: nobody to answer.
    case 'ECONNRESET':
    case 'EPIPE':
      return null;
    case 'HPE_HEADER_OVERFLOW':
      return new MailroomError('headers_too_large', `The request headers are too large (${Math.round(maxHeaderSize / 1024)} KB at most).`);
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new MailroomError('request_timeout', 'The request did not arrive in time.');
    default:
      return new MailroomError('invalid_json', 'The request is not valid HTTP/1.1 (request line, headers or body framing).');
  }
}
