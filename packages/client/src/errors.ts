/**
 * The names of the API's errors (DESIGN §4 "Errors"), plus `unexpected_response` for an answer
 * that is not Mailroom's error JSON (a proxy's HTML page, say).
 */
export type MailroomErrorName =
  | 'invalid_json' | 'invalid_idempotency_key'
  | 'missing_api_key' | 'invalid_session' | 'invalid_credentials'
  | 'invalid_api_key' | 'restricted_api_key' | 'forbidden' | 'domain_not_verified'
  | 'not_found' | 'method_not_allowed' | 'request_timeout'
  | 'invalid_idempotent_request' | 'concurrent_idempotent_requests' | 'conflict'
  | 'payload_too_large' | 'headers_too_large' | 'validation_error' | 'missing_required_field'
  | 'rate_limit_exceeded' | 'internal_server_error' | 'service_unavailable'
  | 'unexpected_response';

/**
 * `instanceof` that holds across copies of this package: the ES module and the CommonJS build
 * loaded in one process (one dependency imports it, another requires it), or two installed
 * versions. Each error carries a symbol from the global registry naming its class, and each
 * class recognises that symbol; a subclass of one of them is checked as JavaScript would.
 */
function brand<T extends abstract new (...args: never[]) => Error>(cls: T, key: symbol): void {
  Object.defineProperty(cls.prototype, key, { value: true });
  Object.defineProperty(cls, Symbol.hasInstance, {
    value(this: T, value: unknown): boolean {
      if (this !== cls) return Function.prototype[Symbol.hasInstance].call(this, value);
      return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[key] === true;
    },
  });
}

/**
 * The API answered with an error. `name` is the contract's machine name (`not_found`,
 * `validation_error`, …), `statusCode` the HTTP status, `requestId` the `X-Request-Id` the
 * gateway logged it under (quote it when asking for help).
 */
export class MailroomError extends Error {
  override readonly name: MailroomErrorName;
  readonly statusCode: number;
  readonly requestId: string | null;
  /** Seconds the server asked to wait before trying again (`Retry-After`), when it said. */
  readonly retryAfterSeconds: number | null;

  constructor(init: { name: MailroomErrorName; message: string; statusCode: number; requestId: string | null; retryAfterSeconds?: number | null }) {
    super(init.message);
    this.name = init.name;
    this.statusCode = init.statusCode;
    this.requestId = init.requestId;
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
  }
}

/** No answer came: the connection failed or was dropped. `cause` holds what fetch threw. */
export class MailroomConnectionError extends Error {
  override readonly name = 'MailroomConnectionError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** No answer came within the timeout (per attempt). */
export class MailroomTimeoutError extends Error {
  override readonly name = 'MailroomTimeoutError';
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super(`No answer within ${timeoutMs} ms.`);
    this.timeoutMs = timeoutMs;
  }
}

/** A webhook delivery failed verification: its body, signature or timestamp cannot be trusted. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

brand(MailroomError, Symbol.for('@mailroom/client MailroomError'));
brand(MailroomConnectionError, Symbol.for('@mailroom/client MailroomConnectionError'));
brand(MailroomTimeoutError, Symbol.for('@mailroom/client MailroomTimeoutError'));
brand(WebhookVerificationError, Symbol.for('@mailroom/client WebhookVerificationError'));
