import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from '../logger';

/** One queue's due work, as read from the source of truth (`readBacklog` in packages/db). */
export interface BacklogReading {
  due: number;
  oldestDueAgeSeconds: number;
}

export interface BacklogMetricsOptions {
  /** The queues this service reports (catalog names: `send`, `webhook-deliveries`, `inbound`). */
  queues: readonly string[];
  read(queue: string): Promise<BacklogReading>;
  logger: Logger;
  /** A reading is reused for this long, so the two gauges and concurrent scrapes share one query, in ms. */
  maxAgeMs?: number;
  /** A scrape waits at most this long for a reading; past it the series are left out of that scrape, in ms. */
  timeoutMs?: number;
}

const MAX_AGE_MS = 5_000;
const TIMEOUT_MS = 2_000;

/**
 * `mailroom_queue_due_items{queue}` and `mailroom_queue_oldest_due_age_seconds{queue}`, read at
 * scrape time (prom-client `collect`) with a short cache and a timeout, so a scrape never hangs
 * on a slow database: a queue whose reading failed or timed out is missing from that scrape
 * (and `mailroom_queue_backlog_read_failures_total` counts it), never reported stale.
 */
export function registerBacklogMetrics(registry: Registry, options: BacklogMetricsOptions): void {
  const maxAgeMs = options.maxAgeMs ?? MAX_AGE_MS;
  const timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
  const cache = new Map<string, { at: number; reading: Promise<BacklogReading | null> }>();
  // A read that outlived its scrape's timeout is waited for again rather than doubled, so a
  // stuck database holds at most one of the worker's connections per queue.
  const inFlight = new Map<string, Promise<BacklogReading>>();
  const readOnce = (queue: string): Promise<BacklogReading> => {
    let read = inFlight.get(queue);
    if (!read) {
      read = options.read(queue).finally(() => inFlight.delete(queue));
      inFlight.set(queue, read);
    }
    return read;
  };
  const reading = (queue: string): Promise<BacklogReading | null> => {
    const cached = cache.get(queue);
    if (cached && Date.now() - cached.at < maxAgeMs) return cached.reading;
    const read = withTimeout(readOnce(queue), timeoutMs).catch((err: unknown) => {
      failures.inc({ queue });
      options.logger.warn({ err, queue }, 'backlog not read for /metrics');
      cache.delete(queue);
      return null;
    });
    cache.set(queue, { at: Date.now(), reading: read });
    return read;
  };
  const failures = new Counter({
    name: 'mailroom_queue_backlog_read_failures_total',
    help: 'Backlog readings that failed or timed out at scrape time, by queue.',
    labelNames: ['queue'],
    registers: [registry],
    // Waits for this scrape's readings, so a failure shows in the scrape it happened in.
    async collect() {
      await Promise.all(options.queues.map(reading));
    },
  });
  // Every queue's series exists from the start at 0, so increase() (MailroomBacklogUnreadable)
  // sees the first failure: a series first scraped at 1 has no earlier sample to rise from,
  // and Prometheus showed the alert's selector with no data at all on a healthy run
  // (test/deploy/prometheus-peer.test.ts).
  for (const queue of options.queues) failures.inc({ queue }, 0);
  const collectInto = async (gauge: Gauge<'queue'>, pick: (r: BacklogReading) => number) => {
    const readings = await Promise.all(options.queues.map(async (queue) => [queue, await reading(queue)] as const));
    gauge.reset();
    for (const [queue, r] of readings) if (r) gauge.set({ queue }, pick(r));
  };
  new Gauge({
    name: 'mailroom_queue_due_items',
    help: "Work due now per queue, counted in PostgreSQL (the rule KEDA's triggers use), at most 100000.",
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      await collectInto(this, (r) => r.due);
    },
  });
  new Gauge({
    name: 'mailroom_queue_oldest_due_age_seconds',
    help: 'Seconds since the oldest due item of each queue became due; 0 when nothing is due.',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      await collectInto(this, (r) => r.oldestDueAgeSeconds);
    },
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
