import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from './logger';
import { redactUrl } from './run-service';
import { isUnavailableError } from './unavailable';

export interface RedisConnectionOptions {
  /**
   * The service's logger: the connection logs one line when it goes down (with the error's code)
   * and one when it is back, never one per reconnect attempt. Without one (scripts, tests) its
   * errors are heard and dropped, so ioredis never prints its own "Unhandled error event" dumps.
   */
  logger?: Logger;
  /** What the connection is for, in those lines (`requests`, `workers`); its duplicates add `/duplicate-<n>`. */
  role?: string;
  /** ioredis options over the kind's. */
  ioredis?: RedisOptions;
}

// The logger each connection made here reports to, read by queueErrorListener.
const connectionLoggers = new WeakMap<object, Logger>();
// Errors a connection made here has already reported (or dropped): BullMQ forwards the same
// objects to every queue and worker on that connection, which must not report them again.
const connectionErrors = new WeakSet<object>();
// The duplicates each connection made here has handed out (BullMQ's blocking connections).
const connectionDuplicates = new WeakMap<Redis, Redis[]>();

/**
 * A Redis connection. `kind: 'worker'` suits BullMQ workers (commands wait through
 * reconnects); `kind: 'request'` suits request paths, which must fail fast and answer 503.
 * Its duplicates (BullMQ's blocking connection of each worker) report the same way.
 */
export function createRedis(url: string, kind: 'worker' | 'request', options: RedisConnectionOptions = {}): Redis {
  const base: RedisOptions =
    kind === 'worker'
      ? { maxRetriesPerRequest: null, enableReadyCheck: false }
      : { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000, commandTimeout: 2_000 };
  const redis = new Redis(url, { ...base, lazyConnect: true, ...options.ioredis });
  if (kind === 'request' && options.logger) watchAnswers(redis, url, options.logger, options.role ?? kind);
  return watchConnection(redis, url, options.logger, options.role ?? kind);
}

// How often a request connection checks that Redis answers, and how long it waits for the answer.
const ANSWER_CHECK_INTERVAL_MS = 5_000;
const ANSWER_TIMEOUT_MS = 2_000;

/**
 * A Redis that stops answering while its socket stays open (frozen, swapping, a partition that
 * drops packets) raises no connection error: commands only time out, and the request paths fall
 * back quietly. So a request connection pings it every few seconds while connected, and logs once
 * when it stops answering and once when it answers again.
 */
function watchAnswers(redis: Redis, url: string, logger: Logger, role: string): void {
  let silentSince: number | null = null;
  const timer = setInterval(() => {
    if (redis.status !== 'ready') return; // Down: the connection's own lines say so.
    answerWithin(redis.ping(), ANSWER_TIMEOUT_MS).then(
      () => {
        if (silentSince === null) return;
        logger.info({ redis: redactUrl(url), connection: role, silentMs: Date.now() - silentSince }, 'redis answering again');
        silentSince = null;
      },
      (err: Error) => {
        if (silentSince !== null || !/timed out/i.test(err.message)) return;
        silentSince = Date.now();
        logger.warn({ redis: redactUrl(url), connection: role, waitedMs: ANSWER_TIMEOUT_MS }, 'redis not answering: connected, but commands time out');
      },
    );
  }, ANSWER_CHECK_INTERVAL_MS);
  timer.unref();
  redis.once('end', () => clearInterval(timer));
}

/** Logs a connection's outages once each way, and makes its duplicates do the same. */
function watchConnection(redis: Redis, url: string, logger: Logger | undefined, role: string): Redis {
  if (logger) connectionLoggers.set(redis, logger);
  let downSince: number | null = null;
  let failedAttempts = 0;
  redis.on('error', (err: Error) => {
    connectionErrors.add(err);
    if (downSince !== null) {
      failedAttempts += 1;
      return;
    }
    downSince = Date.now();
    failedAttempts = 1;
    logger?.warn(
      { redis: redactUrl(url), connection: role, code: errorCode(err), err: err.message },
      'redis connection lost; reconnecting (attempts are not logged)',
    );
  });
  redis.on('ready', () => {
    if (downSince === null) return;
    logger?.info({ redis: redactUrl(url), connection: role, downMs: Date.now() - downSince, failedAttempts }, 'redis connection restored');
    downSince = null;
  });
  const duplicate = redis.duplicate.bind(redis);
  let duplicates = 0;
  const made: Redis[] = [];
  connectionDuplicates.set(redis, made);
  redis.duplicate = (override?: Partial<RedisOptions>) => {
    const copy = watchConnection(duplicate(override), url, logger, `${role}/duplicate-${++duplicates}`);
    made.push(copy);
    copy.once('end', () => {
      const at = made.indexOf(copy);
      if (at >= 0) made.splice(at, 1);
    });
    return copy;
  };
  return redis;
}

/**
 * Disconnects a connection made here and every duplicate it handed out, without waiting for
 * Redis (no QUIT): for a stopping service whose Redis does not answer.
 */
export function disconnectWithDuplicates(redis: Redis): void {
  for (const copy of connectionDuplicates.get(redis) ?? []) disconnectWithDuplicates(copy);
  redis.disconnect();
}

function errorCode(err: Error): string {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : err.name;
}

/**
 * The 'error' listener of a BullMQ queue or worker on `connection`. Without one BullMQ prints
 * every error it forwards (one per reconnect attempt of each connection) with console.error.
 * Errors of the connection itself were reported by it (see createRedis), and commands failing
 * while it is down are that same outage; anything else is logged with the queue's name through
 * the connection's logger.
 */
export function queueErrorListener(connection: unknown, queue: string): (err: Error) => void {
  const logger = typeof connection === 'object' && connection !== null ? connectionLoggers.get(connection) : undefined;
  return (err) => {
    if (connectionErrors.has(err) || isUnavailableError(err)) return;
    logger?.warn({ err, queue }, 'queue error');
  };
}

/**
 * `command`'s answer, or a rejection ("Command timed out", unavailability) once `ms` have passed
 * without one; the command itself runs on to its connection's own timeout. For Redis calls on a
 * request path that have a fallback (the rate limiter counts in memory, API keys are checked in
 * PostgreSQL): a Redis that hangs (frozen, partitioned) then costs each request `ms` at most per
 * call, not the connection's 2 s.
 */
export function answerWithin<T>(command: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Command timed out: Redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([command, late]).finally(() => clearTimeout(timer));
}

export type { Redis };
