import { type Logger, newId } from '@mailroom/core';
import type { EngagementHit } from '@mailroom/db';
import type { EngagementSpill } from './engagement-spill';

export interface SpillDrainerOptions {
  spill: EngagementSpill;
  /**
   * Writes one claimed chunk, durably, skipping the hits whose `eventId` is already in the outbox
   * (a chunk may have been written before: its removal from Redis lost, or its claim taken over).
   */
  write(hits: EngagementHit[]): Promise<void>;
  /** Answers once PostgreSQL does: tried before claiming again after a write failed, so a chunk is not moved to and fro every interval. */
  probe(): Promise<unknown>;
  logger: Logger;
  /** How often the spill is looked at, in ms (default 1000); a look claims and writes until it is empty. */
  intervalMs?: number;
  /** The largest chunk one write takes (default 5,000). */
  maxBatch?: number;
}

const DEFAULT_INTERVAL_MS = 1_000;
const DEFAULT_MAX_BATCH = 5_000;

/**
 * Writes the spill (EngagementSpill) into the outbox whenever PostgreSQL takes writes: at start
 * and every `intervalMs`, it claims the oldest chunk, writes it and removes it, chunk after
 * chunk until the spill is empty, alongside the buffer's own writes. Several replicas drain one
 * spill at once, each its own chunks. A failed write gives its chunk back to the spill; a
 * removal Redis did not take leaves the claim in place, and the next look writes it again, its
 * events skipped, before removing it.
 *
 * A write that fails while PostgreSQL answers is about that chunk (too big for the statement
 * timeout, or an event PostgreSQL refuses), not an outage: the next claim takes half as many
 * events, down to one, and a single event that still fails goes to the end of the spill, so the
 * events behind it are written and nothing waits for ever behind one that cannot be. Nothing is
 * dropped: it is tried again when the spill comes round to it.
 */
export class SpillDrainer {
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private holding = false;
  private writeFailed = false;
  private unreachable = false;
  private stopping = false;
  private lastTotal = 0;
  private readonly intervalMs: number;
  private readonly maxBatch: number;
  // How many events the next claim takes: maxBatch, halved after each write that failed while
  // PostgreSQL answered.
  private batch: number;

  constructor(private readonly options: SpillDrainerOptions) {
    this.intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
    this.maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
    this.batch = this.maxBatch;
  }

  /** Events in the spill (every replica's, claims included) when it was last looked at. */
  get spilled(): number {
    return this.lastTotal;
  }

  start(): void {
    this.stopping = false;
    void this.drain();
    this.timer ??= setInterval(() => {
      // A long write keeps its claim: the lease is renewed while it runs.
      if (this.running !== null && this.holding) void this.options.spill.renew().catch(() => undefined);
      void this.drain();
    }, this.intervalMs);
  }

  /** Looks at the spill now: claims and writes chunk after chunk until it is empty or a step fails. Resolves when that is done; never rejects. */
  drain(): Promise<void> {
    this.running ??= this.pass().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /**
   * Stops looking at the spill and waits, `deadlineMs` at most, for the chunk being written; a
   * chunk still held then is left to its lease (another replica takes it over when it runs out).
   */
  async stop(deadlineMs = 5_000): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.running === null) return;
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([this.running, new Promise((resolve) => (timeout = setTimeout(resolve, deadlineMs)))]);
    clearTimeout(timeout);
  }

  private async pass(): Promise<void> {
    const { spill, logger } = this.options;
    if (this.writeFailed) {
      try {
        await this.options.probe();
      } catch {
        return;
      }
      this.writeFailed = false;
    }
    while (!this.stopping) {
      let claimed: Awaited<ReturnType<EngagementSpill['claim']>>;
      try {
        claimed = await spill.claim(this.batch);
      } catch (err) {
        if (!this.unreachable) logger.warn({ err }, 'engagement spill not read; trying again');
        this.unreachable = true;
        return;
      }
      if (this.unreachable) logger.info('engagement spill read again');
      this.unreachable = false;
      this.lastTotal = claimed.total;
      const claimedCount = claimed.hits.length + claimed.unreadable;
      this.holding = claimedCount > 0;
      if (claimedCount === 0) return;
      if (claimed.unreadable > 0) logger.error({ unreadable: claimed.unreadable }, 'engagement spill entries unreadable; left out');
      const hits = distinctEvents(claimed.hits);
      try {
        await this.options.write(hits);
      } catch (err) {
        const answering = await this.options.probe().then(
          () => true,
          () => false,
        );
        this.writeFailed = !answering;
        const alone = answering && claimedCount === 1;
        if (answering) this.batch = Math.max(1, Math.ceil(claimedCount / 2));
        logger.warn(
          { err, events: claimedCount, spilled: claimed.total, ...(answering ? { nextChunk: this.batch } : {}) },
          alone
            ? 'spilled engagement event not written while PostgreSQL answers; moved to the end of the spill'
            : 'spilled engagement events not written; retrying',
        );
        // Back in line for whichever replica PostgreSQL takes writes from first (or, alone and
        // refused, last in line); if Redis does not take it, the claim stays this process's and
        // the next look writes it.
        await (alone ? spill.requeue() : spill.release()).then(
          () => {
            this.holding = false;
          },
          () => undefined,
        );
        if (alone) this.batch = this.maxBatch;
        return;
      }
      this.writeFailed = false;
      // Grows back after a chunk was halved: the events it was cut for are behind this one.
      this.batch = Math.min(this.maxBatch, this.batch * 2);
      try {
        await spill.finish();
        this.holding = false;
      } catch (err) {
        logger.warn({ err, events: hits.length }, 'spilled engagement events written but not removed from the spill; rechecked on the next look');
        return;
      }
      this.lastTotal = Math.max(0, claimed.total - claimedCount);
      logger.info({ events: hits.length, spilled: this.lastTotal }, 'spilled engagement events written');
    }
  }
}

/**
 * The hits with distinct event ids, in order: a batch can be spilled twice (a push whose reply
 * was lost, then pushed again), and the outbox takes an id once.
 */
function distinctEvents(hits: readonly EngagementHit[]): EngagementHit[] {
  const seen = new Set<string>();
  const out: EngagementHit[] = [];
  for (const hit of hits) {
    hit.eventId ??= newId('event');
    if (seen.has(hit.eventId)) continue;
    seen.add(hit.eventId);
    out.push(hit);
  }
  return out;
}
