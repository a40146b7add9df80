import pg from 'pg';

// pg's error when a statement's answer did not come within `query_timeout`.
const READ_TIMEOUT_MESSAGE = 'Query read timeout';

/**
 * A pg client that ends its connection when a statement's answer does not come within
 * `query_timeout`. pg fails that statement but keeps the connection waiting for its answer, and
 * a pool hands such a client out again when it is released without an error (a transaction's
 * client, Prisma's): every later statement on it would queue behind the lost one. Ended, it is
 * discarded at its release, so a server that stops answering (a stalled disk, a frozen VM, a
 * network partition) costs each caller one timeout, and the pool reconnects once it is back.
 */
export class ReadTimeoutClient extends pg.Client {}

function endOnReadTimeout(client: pg.Client, err: unknown): void {
  if (err instanceof Error && err.message === READ_TIMEOUT_MESSAGE) client.end().catch(() => undefined);
}

const plainQuery = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown;
(ReadTimeoutClient.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function query(this: pg.Client, ...args: unknown[]): unknown {
  const callbackAt = args.findIndex((arg) => typeof arg === 'function');
  if (callbackAt >= 0) {
    const callback = args[callbackAt] as (err: Error | null, result: unknown) => void;
    args[callbackAt] = (err: Error | null, result: unknown) => {
      endOnReadTimeout(this, err);
      callback(err, result);
    };
    return plainQuery.apply(this, args);
  }
  const returned = plainQuery.apply(this, args);
  if (!(returned instanceof Promise)) return returned;
  return returned.catch((err: unknown) => {
    endOnReadTimeout(this, err);
    throw err;
  });
};
