/**
 * Checks of what an application passes in, made before anything is sent: a TypeError that
 * names the mistake, never a request that cannot mean what was asked (a timer that fires at
 * once, a path that lands on another endpoint, a header fetch refuses) reported as a failure
 * of the network or the server.
 */

/** The longest timer JavaScript has: a longer one fires at once (Node warns, browsers clamp it to 0). */
export const MAX_TIMEOUT_MS = 2_147_483_647;

export function checkTimeoutMs(value: unknown, where: string): number {
  if (typeof value !== 'number' || !(value > 0) || value > MAX_TIMEOUT_MS) {
    throw new TypeError(`Mailroom: ${where} must be a number of milliseconds from 1 to ${MAX_TIMEOUT_MS} (about 24.8 days, the longest timer JavaScript has); got ${String(value)}.`);
  }
  return value;
}

export function checkMaxRetries(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new TypeError(`Mailroom: ${where} must be a whole number, 0 or more (0 turns retries off); got ${String(value)}.`);
  }
  return value;
}

/** A credential as a header carries it: printable ASCII, no spaces (API keys, session tokens and project ids all are). */
export function checkCredential(value: string, name: string): string {
  if (!/^[\x21-\x7e]+$/.test(value)) throw new TypeError(`Mailroom: ${name} holds characters no ${name} has (spaces, line breaks or non-ASCII); check how it was copied.`);
  return value;
}

/**
 * An Idempotency-Key as its header's bytes: any text without control characters, sent as UTF-8
 * (what the gateway reads; fetch takes header values as Latin-1 code units, one per byte).
 */
export function idempotencyKeyHeader(key: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (typeof key !== 'string' || key === '' || /[\x00-\x1f\x7f]/.test(key)) {
    throw new TypeError('Mailroom: idempotencyKey must be a non-empty string without control characters (no line breaks).');
  }
  return Array.from(new TextEncoder().encode(key), (byte) => String.fromCharCode(byte)).join('');
}

/** A path parameter, percent-encoded; `.` and `..` are refused, as a URL would resolve them to another path. */
export function pathSegment(value: unknown, name: string, template: string): string {
  if (typeof value !== 'string' || value === '') throw new TypeError(`Missing the path parameter "${name}" for ${template}.`);
  if (value === '.' || value === '..') throw new TypeError(`The path parameter "${name}" for ${template} cannot be "${value}": no id is, and the URL would name another path.`);
  return encodeURIComponent(value);
}
