import { type ByteBudget, MailroomError } from '@mailroom/core';
import express, { type Request, type Response } from 'express';

const tooLarge = () => new MailroomError('payload_too_large', 'The request body is too large.');

/** body-parser's error types, as the contract names them. */
const BODY_ERRORS: Record<string, () => MailroomError> = {
  'entity.parse.failed': () => new MailroomError('invalid_json', 'The request body is not valid JSON.'),
  'entity.too.large': () => tooLarge(),
  'entity.verify.failed': () => new MailroomError('invalid_json', 'The request body could not be read.'),
  'encoding.unsupported': () =>
    new MailroomError('invalid_json', 'The request body has an unsupported Content-Encoding; send identity, gzip, deflate or br.'),
  'charset.unsupported': () => new MailroomError('invalid_json', 'The request body has an unsupported charset; send UTF-8.'),
  'request.size.invalid': () => new MailroomError('invalid_json', 'The request body does not match its Content-Length.'),
  'request.aborted': () => new MailroomError('invalid_json', 'The request body was not received completely.'),
};

/** Reads a request's JSON body into `req.body`; rejects with a contract error only. */
export type JsonBodyReader = (req: Request, res: Response) => Promise<void>;

export interface JsonBodyReaderOptions {
  limit: string;
  /** `limit` in bytes. */
  limitBytes: number;
  deadlineMs: number;
  onTimeout?: (req: Request) => void;
  /**
   * For a route that takes no body: whatever is sent is read within the same limit and deadline
   * and dropped, not parsed (a client's `{}` or stray bytes do not matter; 30 MB is still a 413).
   */
  discard?: boolean;
  /**
   * The process's budget of body bytes (API_MAX_BUFFERED_BYTES): a body takes what
   * `bodyBytes` charges it from its first byte until the response is over, as the parsed body
   * lives that long.
   */
  budget?: ByteBudget;
}

/**
 * A JSON body reader with a size limit (applied to the inflated size when the body is
 * compressed) and a deadline for the whole body, so a client that stops sending, or sends a
 * short Content-Length, is answered 408 `request_timeout` rather than held open. A body the
 * budget cannot hold now is not read: 503 `service_unavailable` with `Retry-After`, and what
 * the client still sends of it is dropped. `onTimeout` runs when the deadline passes.
 */
export function jsonBodyReader(options: JsonBodyReaderOptions): JsonBodyReader {
  // Not strict: any JSON value is parsed, so a body of the wrong type (`null`, `"x"`) is a
  // validation error rather than a parse error.
  const parse = options.discard
    ? express.raw({ limit: options.limit, type: () => true })
    : express.json({ limit: options.limit, type: () => true, strict: false });
  const { budget } = options;
  return (req, res) => {
    if (expectsContinue(req)) {
      // The gateway answers `Expect: 100-continue` itself (start-gateway.ts): the body is asked
      // for only here, once the request was authenticated, authorized and routed, and a body
      // declared over the limit is refused before it is sent. Node closes the connection after
      // an answer that never asked for the body.
      if (declaredOverLimit(req, options.limitBytes)) return Promise.reject(tooLarge());
      res.writeContinue();
    }
    const bytes = budget ? bodyBytes(req, options.limitBytes) : 0;
    if (budget && bytes > 0) {
      if (!budget.take(bytes)) {
        // Not `Connection: close`: the body a client goes on sending is then read and dropped as
        // it comes (no memory held; the server's requestTimeout bounds it), so a client sending a
        // large body reads this answer, where a close mid-body would reset its connection first.
        res.setHeader('Retry-After', '1');
        return Promise.reject(new MailroomError('service_unavailable', 'The server holds as many request bodies as it can; retry in a moment.'));
      }
      res.once('close', () => budget.release(bytes));
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        // The rest of the body is not worth waiting for: answer, then close the connection.
        res.setHeader('Connection', 'close');
        req.unpipe();
        options.onTimeout?.(req);
        const seconds = Math.round(options.deadlineMs / 100) / 10;
        reject(new MailroomError('request_timeout', `The request body did not arrive within ${seconds} s.`));
      }, options.deadlineMs);
      parse(req, res, (err?: unknown) => {
        clearTimeout(timer);
        if (options.discard) req.body = undefined;
        if (err) reject(toBodyError(err));
        else resolve();
      });
    });
  };
}

// A compressed body is charged this many times its Content-Length: attachments in base64, the
// bulk of a large send, seldom compress better; one that inflates further is still bounded by
// the route's limit. And at least COMPRESSED_MIN_BYTES.
const COMPRESSION_RATIO = 4;
const COMPRESSED_MIN_BYTES = 65_536;

/**
 * What a body is charged against the budget: its Content-Length when sent as is;
 * COMPRESSION_RATIO times it (at most the limit) when compressed; the limit when chunked (no
 * length to go by); 0 when there is no body (neither header: RFC 9112 §6.3) or its
 * Content-Length is over the limit, as the parser refuses it (413) before reading a byte.
 */
function bodyBytes(req: Request, limitBytes: number): number {
  const declared = req.headers['content-length'];
  if (declared === undefined) return req.headers['transfer-encoding'] === undefined ? 0 : limitBytes;
  const length = Number(declared);
  if (!Number.isSafeInteger(length) || length < 0) return limitBytes;
  if (length > limitBytes) return 0;
  return sentAsIs(req) ? length : Math.min(limitBytes, Math.max(COMPRESSED_MIN_BYTES, length * COMPRESSION_RATIO));
}

/** Whether the client waits for `100 Continue` before sending its body (RFC 9110 §10.1.1). */
function expectsContinue(req: Request): boolean {
  return req.headers.expect?.trim().toLowerCase() === '100-continue';
}

/** Whether an uncompressed body's Content-Length alone is over the limit (body-parser's 413). */
function declaredOverLimit(req: Request, limitBytes: number): boolean {
  const length = Number(req.headers['content-length']);
  return sentAsIs(req) && Number.isSafeInteger(length) && length > limitBytes;
}

/** Whether the body comes without a Content-Encoding (identity): its Content-Length is its size. */
function sentAsIs(req: Request): boolean {
  return (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase() === 'identity';
}

function toBodyError(err: unknown): MailroomError {
  const type = (err as { type?: unknown } | null)?.type;
  if (typeof type === 'string' && BODY_ERRORS[type]) return BODY_ERRORS[type]();
  // Anything else broke the stream: mostly a corrupt or truncated compressed body (zlib's
  // Z_DATA_ERROR or Z_BUF_ERROR, brotli's ERR__ERROR_*).
  return new MailroomError('invalid_json', 'The request body could not be read; if it is compressed, the data is corrupt or truncated.', {
    cause: err,
  });
}
