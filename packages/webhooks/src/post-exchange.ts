import type { Dispatcher } from 'undici';

/** The part of a response body kept in the attempt log; the rest is never read. */
export const RESPONSE_BODY_BYTES = 4096;

/** How one exchange ended: a response (status, first 4 KB, Retry-After) or an error. */
export type ExchangeOutcome =
  | { ok: true; status: number; body: string; retryAfter: string | undefined }
  /** `status`: the response's, when it failed after its head (its body cut off), else null. */
  | { ok: false; error: unknown; status: number | null };

/** The error an exchange ends with when its deadline passes (described like an AbortSignal timeout). */
export class ExchangeTimeoutError extends Error {
  override readonly name = 'TimeoutError';
  constructor(
    /** False when no connection was ever made: the lookup, the TCP connect or the TLS handshake did not complete. */
    readonly connected: boolean,
  ) {
    super(connected ? 'The webhook exchange timed out.' : 'The webhook exchange timed out before a connection was made.');
  }
}

// Responses that end at the empty line after their head whatever their header fields say (RFC 9112
// §6.3, rule 1): a Content-Length on them announces no content (RFC 9110 §8.6: a 304 may carry the
// length the 200 would have had), yet undici counts its bytes and fails such a response.
const NO_CONTENT_STATUSES = new Set([204, 304]);
const CONTENT_LENGTH_MISMATCH = 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH';

const RETRY_AFTER = 'retry-after';

/**
 * One POST as an undici dispatch handler: no response stream, no promise per body, no abort
 * signal; the body is gathered up to RESPONSE_BODY_BYTES and then the exchange is aborted (the
 * connection is not reused then). `Retry-After` is looked up only on a 429 or 503. Settles once,
 * with whatever comes first: the end of the response, an error, or `expire()` (its deadline).
 */
export class PostExchange implements Dispatcher.DispatchHandler {
  private abortExchange: ((err?: Error) => void) | null = null;
  private status: number | null = null;
  private retryAfter: string | undefined;
  private chunks: Buffer[] = [];
  private size = 0;
  private settled = false;

  constructor(
    /** performance.now() after which `expire()` ends it. */
    readonly deadline: number,
    private readonly settle: (outcome: ExchangeOutcome) => void,
  ) {}

  /** The deadline passed: ends the exchange now as a timeout. */
  expire(): void {
    if (this.settled) return;
    // undici calls onConnect once the request has a connected socket.
    const err = new ExchangeTimeoutError(this.abortExchange !== null);
    this.finish({ ok: false, error: err, status: this.status });
    this.abortExchange?.(err);
  }

  onConnect(abort: (err?: Error) => void): void {
    this.abortExchange = abort;
    // Expired while waiting for a connection.
    if (this.settled) abort(new ExchangeTimeoutError(false));
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    // 1xx informational answers are followed by the real one.
    if (statusCode < 200) return true;
    this.status = statusCode;
    if (statusCode === 429 || statusCode === 503) this.retryAfter = findHeader(rawHeaders, RETRY_AFTER);
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size >= RESPONSE_BODY_BYTES && !this.settled) {
      this.complete();
      this.abortExchange?.(new Error('Response body beyond the part kept.'));
    }
    return true;
  }

  onComplete(): void {
    this.complete();
  }

  onError(err: Error): void {
    if (this.status !== null && NO_CONTENT_STATUSES.has(this.status) && (err as { code?: string }).code === CONTENT_LENGTH_MISMATCH) {
      this.complete();
      return;
    }
    this.finish({ ok: false, error: err, status: this.status });
  }

  private complete(): void {
    if (this.status === null) {
      this.finish({ ok: false, error: new Error('No response status.'), status: null });
      return;
    }
    const body = utf8Prefix(Buffer.concat(this.chunks, this.size).subarray(0, RESPONSE_BODY_BYTES));
    this.chunks = [];
    this.finish({ ok: true, status: this.status, body, retryAfter: this.retryAfter });
  }

  private finish(outcome: ExchangeOutcome): void {
    if (this.settled) return;
    this.settled = true;
    this.settle(outcome);
  }
}

/** The bytes as UTF-8 text, without the last character when the 4 KB cut went through it (no trailing U+FFFD). */
function utf8Prefix(bytes: Buffer): string {
  let lead = bytes.length - 1;
  while (lead >= 0 && bytes.length - lead <= 3 && ((bytes[lead] as number) & 0xc0) === 0x80) lead--;
  const byte = lead >= 0 ? (bytes[lead] as number) : 0;
  const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
  const end = lead >= 0 && lead + length > bytes.length ? lead : bytes.length;
  return bytes.toString('utf8', 0, end);
}

/** The first value of a header in undici's raw [name, value, name, value, …] list. */
function findHeader(rawHeaders: Buffer[], lowerName: string): string | undefined {
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as Buffer;
    if (name.length === lowerName.length && name.toString('latin1').toLowerCase() === lowerName) return (rawHeaders[i + 1] as Buffer).toString('latin1');
  }
  return undefined;
}

/**
 * Ends exchanges whose deadline passed, with one timer for all of them. Every exchange of a
 * client has the same timeout, so deadlines come in start order: the oldest is the next to
 * expire, and the timer only ever waits for it (a finished one is skipped when the timer fires).
 * An AbortSignal.timeout per POST (a timer, an event target and listeners each) cost more
 * CPU than the rest of a webhook's HTTP exchange.
 */
export class ExchangeDeadlines {
  /** In start order, so in deadline order. */
  private readonly pending = new Set<PostExchange>();
  private timer: NodeJS.Timeout | null = null;

  add(exchange: PostExchange): void {
    this.pending.add(exchange);
    if (!this.timer) this.arm(exchange.deadline);
  }

  delete(exchange: PostExchange): void {
    this.pending.delete(exchange);
  }

  /** Stops the timer (the client is closing). */
  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(deadline: number): void {
    this.timer = setTimeout(() => this.expireDue(), Math.max(0, deadline - performance.now()));
    // The sockets in use keep the process alive, not this timer.
    this.timer.unref();
  }

  private expireDue(): void {
    this.timer = null;
    const now = performance.now();
    for (const exchange of this.pending) {
      if (exchange.deadline > now) {
        this.arm(exchange.deadline);
        return;
      }
      this.pending.delete(exchange);
      exchange.expire();
    }
  }
}
