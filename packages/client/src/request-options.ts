/** Per-call settings, the last argument of every method. */
export interface RequestOptions {
  /**
   * `Idempotency-Key` for sends (1–256 characters): a repeat with the same key and body answers
   * the first send's id and sends nothing again, for 24 hours. When absent and retries are on,
   * sends get a generated key so that a retry cannot send twice.
   */
  idempotencyKey?: string;
  /** Aborts the call (and any wait between retries); the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Each attempt must be answered within this (ms); overrides the client's `timeoutMs`. */
  timeoutMs?: number;
  /** Overrides the client's `maxRetries` for this call; `0` tries once. */
  maxRetries?: number;
}

/** Settings shared by every way of constructing a client. */
export interface ClientSettings {
  /** Where the gateway's API is; default `http://localhost:3000`. */
  baseUrl?: string;
  /** Each attempt must be answered within this (ms); default 60 000. */
  timeoutMs?: number;
  /**
   * How many times a safe request is tried again after a 429, 502, 503 or 504 or a network failure, with
   * back-off and jitter that honours `Retry-After`; default 2, `0` turns retries off. Safe
   * means reads, and sends, which carry an idempotency key (generated when not given).
   */
  maxRetries?: number;
  /** The fetch to use; default the platform's `fetch`. */
  fetch?: typeof fetch;
}

export const DEFAULT_BASE_URL = 'http://localhost:3000';
export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 2;
