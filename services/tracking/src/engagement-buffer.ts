import { type Logger, newId } from '@mailroom/core';
import type { EngagementHit } from '@mailroom/db';

export interface EngagementBufferOptions {
  /**
   * Writes one batch, durably; a rejection spills the batch (`spill`) or keeps it for the next
   * try. Each hit has its `eventId`, the same on every try; `retry` says some of the hits were in
   * a write that failed (or a push to the spill whose reply was lost), which may have committed
   * all the same, so those already recorded must be skipped.
   */
  write(hits: EngagementHit[], retry: boolean): Promise<void>;
  logger: Logger;
  /** How long a hit waits at most before its batch is written, in ms (default 1000). */
  flushIntervalMs?: number;
  /**
   * A write starts as soon as this many hits wait (default 2,000), without waiting for the timer,
   * and takes every hit waiting up to `maxBatch`; then the writer goes on with what arrived
   * during that write, however few, until nothing waits. Under a steady load the batches after
   * the first are therefore what one write's duration brings (300-1,000 hits at 20,000 a second),
   * and grow when the writer falls behind, so it keeps up. Measured on one connection, a 2,000-
   * event batch costs less per event than a 500-event one (PostgreSQL 11-14 µs per open against
   * 14-16, this process 5-6 against 8-8.5), but holding every batch to 2,000 under the bench's
   * load changed neither the rate nor the CPU per answer (docs/benchmarks.md, session 30).
   */
  writeAt?: number;
  /** The largest batch one write takes (default 5,000). */
  maxBatch?: number;
  /**
   * Hits held at most while writes fail and the spill takes none (PostgreSQL and Redis down);
   * beyond it the oldest are dropped and counted, a hundredth of the bound at a time (default 200,000).
   */
  maxBuffered?: number;
  /** Told how many hits were dropped for lack of room. */
  onDropped?(count: number): void;
  /**
   * Takes hits off this process's hands, durably (the Redis spill), after a write failed: the
   * failed batch and everything waiting then, each hit with its `eventId`. A rejection (Redis
   * down too, or the spill full) keeps them in memory, as when there is no spill.
   */
  spill?(hits: EngagementHit[]): Promise<unknown>;
}

const DEFAULT_FLUSH_INTERVAL_MS = 1_000;
const DEFAULT_WRITE_AT = 2_000;
const DEFAULT_MAX_BATCH = 5_000;
const DEFAULT_MAX_BUFFERED = 200_000;
// Dropping the oldest hits moves every hit kept (at 200,000, about 1 ms of the event loop), so
// at the bound they are dropped this fraction of it at a time, not one per request.
const DROP_DIVISOR = 100;
// While stopping, a failing write is retried this often, in ms, until the stop deadline.
const STOP_RETRY_MS = 200;

/**
 * Holds opens and clicks in memory between the request that saw them and their batch's write,
 * so the hot path touches no database: a batch is written every `flushIntervalMs` or as soon
 * as `writeAt` hits wait, one write at a time, in arrival order. When a write fails, its batch
 * and every hit waiting then go to the `spill` (Redis), which another writer drains; what the
 * spill does not take stays at the front for the next try. `stop()` writes (or spills)
 * everything left, so SIGTERM loses nothing; a crash loses what waited, at most about one
 * interval of hits (and, while a write is failing, what arrived during it).
 */
export class EngagementBuffer {
  private hits: EngagementHit[] = [];
  // How many hits at the front were in a write that failed: the next write is a retry.
  private retrying = 0;
  // The last write failed: the next try waits for the timer, not for the next hit (PostgreSQL
  // down would otherwise be tried, and logged, once per request).
  private failing = false;
  private writing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly flushIntervalMs: number;
  private readonly writeAt: number;
  private readonly maxBatch: number;
  private readonly maxBuffered: number;

  constructor(private readonly options: EngagementBufferOptions) {
    this.flushIntervalMs = options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS;
    this.maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
    this.writeAt = Math.min(options.writeAt ?? DEFAULT_WRITE_AT, this.maxBatch);
    this.maxBuffered = options.maxBuffered ?? DEFAULT_MAX_BUFFERED;
  }

  /** Hits waiting to be written. */
  get size(): number {
    return this.hits.length;
  }

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.flushIntervalMs);
  }

  add(hit: EngagementHit): void {
    this.hits.push(hit);
    if (this.hits.length > this.maxBuffered) {
      const dropped = Math.min(this.hits.length, Math.max(this.hits.length - this.maxBuffered, Math.ceil(this.maxBuffered / DROP_DIVISOR)));
      this.hits.splice(0, dropped);
      this.retrying = Math.max(0, this.retrying - dropped);
      this.options.onDropped?.(dropped);
      this.options.logger.warn({ dropped, waiting: this.hits.length }, 'engagement buffer full; oldest events dropped');
    }
    if (this.hits.length >= this.writeAt && this.writing === null && !this.failing) void this.flush();
  }

  /** Writes what waits, batch by batch; resolves when the write in progress (and any it started) is done. Never rejects. */
  flush(): Promise<void> {
    this.writing ??= this.drain().finally(() => {
      this.writing = null;
    });
    return this.writing;
  }

  /**
   * Stops the timer and writes everything left (a failed write spills it), retrying a write
   * failing and not spilled until `deadlineMs` has passed; returns how many hits could be neither
   * written nor spilled by then (0 unless PostgreSQL stayed down and the spill did not take them).
   */
  async stop(deadlineMs = 20_000): Promise<number> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      await this.flush();
      if (this.hits.length === 0 || Date.now() >= deadline) break;
      await new Promise((resolve) => setTimeout(resolve, STOP_RETRY_MS));
    }
    if (this.hits.length > 0) this.options.logger.error({ lost: this.hits.length }, 'engagement events could not be written before stopping');
    return this.hits.length;
  }

  private async drain(): Promise<void> {
    while (this.hits.length > 0) {
      const batch = this.hits.splice(0, this.maxBatch);
      // Given here, off the request path, and kept across tries: the idempotency key of each hit.
      for (const hit of batch) hit.eventId ??= newId('event');
      const retry = this.retrying > 0;
      try {
        await this.options.write(batch, retry);
        this.retrying = 0;
        this.failing = false;
      } catch (err) {
        this.failing = true;
        this.retrying = Math.max(0, this.retrying - batch.length);
        await this.spillOrKeep(batch, err);
        return;
      }
    }
  }

  /**
   * After a failed write: the batch, then the hits waiting now (not those arriving meanwhile, which
   * wait for the next try), go to the spill a batch at a time; the first batch it does not take
   * goes back to the front with the rest, as a retry (a push whose reply was lost may have been
   * taken, and a write that failed may have committed).
   */
  private async spillOrKeep(failed: EngagementHit[], err: unknown): Promise<void> {
    const { logger, spill } = this.options;
    if (!spill) {
      this.keep(failed);
      logger.warn({ err, waiting: this.hits.length }, 'engagement batch not written; retrying');
      return;
    }
    let batch = failed;
    let waiting = this.hits.length;
    let spilled = 0;
    for (;;) {
      try {
        await spill(batch);
      } catch (spillErr) {
        this.keep(batch);
        const spillError = spillErr instanceof Error ? spillErr.message : String(spillErr);
        logger.warn({ err, spillError, spilled, waiting: this.hits.length }, 'engagement batch not written nor spilled; retrying');
        return;
      }
      spilled += batch.length;
      if (waiting === 0 || this.hits.length === 0) break;
      batch = this.hits.splice(0, Math.min(this.maxBatch, waiting));
      waiting -= batch.length;
      for (const hit of batch) hit.eventId ??= newId('event');
    }
    logger.warn({ err, spilled, waiting: this.hits.length }, 'engagement batch not written; spilled to Redis');
  }

  /** Puts hits back at the front, as a retry: the next write skips those already recorded. */
  private keep(batch: EngagementHit[]): void {
    this.hits.unshift(...batch);
    this.retrying = Math.max(this.retrying, batch.length);
  }
}
