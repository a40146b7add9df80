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
  '57P02', // crash_shutdown (another backend crashed; the server restarts)
  '57P03', // cannot_connect_now
  '57014', // query_canceled: the statement ran past DATABASE_STATEMENT_TIMEOUT_MS (or waited that long for a lock)
]);
const CONNECTION_MESSAGES = new RegExp(
  [
    'connection terminated',
    'connect ECONNREFUSED',
    'timeout exceeded when trying to connect',
    // pg, when PostgreSQL did not answer a statement at all within its timeout (a frozen server)
    'Query read timeout',
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

/**
 * True when `err` means PostgreSQL or Redis could not be reached, rather than a bad query.
 * Follows `cause`, and the Prisma client's `meta.driverAdapterError`, whose cause carries the
 * server's SQLSTATE as `originalCode` (57P03 while PostgreSQL starts up, for one).
 */
export function isUnavailableError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 6; depth++) {
    if (typeof e !== 'object') break;
    const { code, originalCode, message, cause, meta } = e as {
      code?: unknown;
      originalCode?: unknown;
      message?: unknown;
      cause?: unknown;
      meta?: { driverAdapterError?: unknown };
    };
    for (const c of [code, originalCode]) if (typeof c === 'string' && CONNECTION_CODES.has(c)) return true;
    if (typeof message === 'string' && CONNECTION_MESSAGES.test(message)) return true;
    e = cause ?? meta?.driverAdapterError;
  }
  return false;
}
