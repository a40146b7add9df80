const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'P1001', // Can't reach database server
  'P1002', // Database server timed out
  'P1017', // Server has closed the connection
  'P2024', // Timed out fetching a connection from the pool
  '57P01', // admin_shutdown
  '57P03', // cannot_connect_now
]);
const CONNECTION_MESSAGES = new RegExp(
  [
    'connection terminated',
    'connect ECONNREFUSED',
    'timeout exceeded when trying to connect',
    'Connection is closed',
    'database system is (starting up|shutting down)',
    "Can't reach database server",
    // ioredis, with the offline queue off or retries exhausted
    "Stream isn't writeable",
    'Reached the max retries per request limit',
    'Command timed out',
  ].join('|'),
  'i',
);

/** True when `err` means PostgreSQL or Redis could not be reached, rather than a bad query. */
export function isUnavailableError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 6; depth++) {
    if (typeof e !== 'object') break;
    const { code, message, cause } = e as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
    if (typeof message === 'string' && CONNECTION_MESSAGES.test(message)) return true;
    e = cause;
  }
  return false;
}
