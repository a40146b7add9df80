/**
 * How long a client may take to send a request (DESIGN §4: 408 `request_timeout`). A slow
 * client cannot stretch these: each is a deadline from the start, not an idle timer that
 * every trickled byte resets.
 */
export interface HttpTimeouts {
  /** The request line and headers, from the connection's first byte of that request. */
  headersMs: number;
  /** A body gets this much, plus the time its size limit takes at `bodyBytesPerSecond`. */
  bodyBaseMs: number;
  /** The slowest upload speed served in full: a 40 MB send at 1 MB/s gets 5 s + 40 s. */
  bodyBytesPerSecond: number;
}

export const DEFAULT_TIMEOUTS: Readonly<HttpTimeouts> = Object.freeze({
  headersMs: 10_000,
  bodyBaseMs: 5_000,
  bodyBytesPerSecond: 1_000_000,
});

/** The deadline for reading a body of at most `limitBytes`. */
export function bodyDeadlineMs(timeouts: HttpTimeouts, limitBytes: number): number {
  return Math.ceil(timeouts.bodyBaseMs + (limitBytes / timeouts.bodyBytesPerSecond) * 1000);
}

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2 };

/** `'1mb'` → 1048576, as body-parser reads its `limit`. */
export function parseSize(size: string): number {
  const match = /^(\d+)(b|kb|mb)$/i.exec(size.trim());
  if (!match) throw new Error(`Not a size: ${size}`);
  return Number(match[1]) * (UNITS[(match[2] as string).toLowerCase()] as number);
}
