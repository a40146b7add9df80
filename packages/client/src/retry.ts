/** Retries back off from this delay, doubling each time (ms). */
const INITIAL_DELAY_MS = 500;
/** The longest back-off between two attempts, before jitter (ms). */
const MAX_DELAY_MS = 8_000;
/** A `Retry-After` longer than this is not waited out: the error is thrown to the caller (s). */
export const MAX_RETRY_AFTER_SECONDS = 60;

/**
 * Whether an error answer may be tried again (only safe requests are: reads and keyed sends).
 * 429 and 503 (nothing was done); 502 and 504, which a proxy or load balancer in front of the
 * gateway answers while a replica restarts or is slow (a keyed send's retry answers the first
 * try's outcome, if it got through); and, for a request carrying an idempotency key, the
 * gateway saying the first try with that key is still being processed.
 */
export function isRetryableStatus(status: number, name: string): boolean {
  return status === 429 || status === 502 || status === 503 || status === 504 || (status === 409 && name === 'concurrent_idempotent_requests');
}

/**
 * How long to wait before retry number `retry` (0 for the first): exponential back-off with
 * jitter (half the delay to all of it, so clients that failed together spread out), and never
 * less than the server's `Retry-After`. `null` when the server asks for longer than
 * MAX_RETRY_AFTER_SECONDS.
 */
export function retryDelayMs(retry: number, retryAfterSeconds: number | null, random: () => number = Math.random): number | null {
  if (retryAfterSeconds !== null && retryAfterSeconds > MAX_RETRY_AFTER_SECONDS) return null;
  const backoff = Math.min(MAX_DELAY_MS, INITIAL_DELAY_MS * 2 ** retry);
  const jittered = backoff * (0.5 + random() / 2);
  return Math.max(jittered, (retryAfterSeconds ?? 0) * 1000);
}

/** `Retry-After` as seconds: either a number of seconds or an HTTP date; `null` when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, (date - now) / 1000);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
