import { randomUUID } from 'node:crypto';
import { type IncomingMessage, maxHeaderSize, type RequestListener, type Server, type ServerOptions, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
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
      const requestId = endWithError(socket, error);
      logger.info({ requestId, code: err.code, status: error.statusCode }, 'request refused by the HTTP parser');
    } else {
      socket.destroy();
    }
  };
}

/**
 * Answers a CONNECT request (the `connect` event, which Node leaves to the application and
 * otherwise answers by dropping the socket): none of our servers is a proxy, so 405 with the
 * contract's JSON, `Allow` naming the methods the server takes (`allow`), and the connection closed.
 */
export function answerConnect(logger: Logger, allow: string): (req: IncomingMessage, socket: Duplex) => void {
  return (req, socket) => {
    const error = new MailroomError('method_not_allowed', `CONNECT is not allowed here (this is no proxy); use ${allow}.`);
    const requestId = endWithError(socket, error, `Allow: ${allow}\r\n`);
    logger.info({ requestId, method: req.method, status: error.statusCode }, 'CONNECT refused');
  };
}

/** Writes the contract's JSON error as a whole HTTP/1.1 response on a raw socket, then closes it; returns its X-Request-Id. */
function endWithError(socket: Duplex, error: MailroomError, extraHeaders = ''): string {
  const requestId = randomUUID();
  const body = JSON.stringify(error.toBody());
  socket.on('error', () => undefined);
  socket.end(
    `HTTP/1.1 ${error.statusCode} ${STATUS_CODES[error.statusCode]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Cache-Control: no-store\r\n' +
      `X-Request-Id: ${requestId}\r\n` +
      extraHeaders +
      'Connection: close\r\n\r\n' +
      body,
    () => socket.destroy(),
  );
  return requestId;
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

/**
 * The creation options of every HTTP server of ours: its header and whole-request deadlines,
 * checked each second at most (Node checks them every 30 s by default, which stretched a 10 s
 * deadline to 40), and a request without Host left to `missingHostHeader`'s JSON (Node's own
 * refusal is a bare 400).
 */
export function httpServerOptions(headersTimeoutMs: number, requestTimeoutMs: number): ServerOptions {
  return {
    headersTimeout: headersTimeoutMs,
    requestTimeout: requestTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, Math.ceil(headersTimeoutMs / 4)),
    requireHostHeader: false,
  };
}

/**
 * What Node would answer itself, outside the contract, answered within it on `server`: what its
 * parser refuses (answerClientError), CONNECT (answerConnect, `allow` the methods the server
 * takes), and an `Expect` other than 100-continue, which Node answers with a bare 417: RFC 9110
 * §10.1.1 lets a server ignore an expectation it does not know, so the request goes to
 * `handler` as if it had none.
 */
export function answerNodeRefusals(
  server: Server,
  options: { logger: Logger; allow: string; handler: RequestListener; onHeadersTimeout?: (remoteAddress: string | undefined) => void },
): void {
  server.on('clientError', answerClientError(options.logger, options.onHeadersTimeout));
  server.on('connect', answerConnect(options.logger, options.allow));
  server.on('checkExpectation', options.handler);
}
