import { isUnavailableError } from './unavailable';

interface Pending<T> {
  items: T[];
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Lets an idle writer wait a moment for items known to be on their way, instead of writing a
 * lone item at once and making the others wait for that write before their own (the same
 * idea as PostgreSQL's `commit_delay` with `commit_siblings`).
 */
export interface CommitHold {
  /** True while more items are expected soon (say, other SMTP sessions still sending DATA). */
  expected(): boolean;
  /**
   * Longest wait, in ms. Unless `cutToLastWrite` is false, the wait is also cut to the duration
   * of the last write: waiting longer than a write takes would cost the waiting caller more than
   * it saves the expected ones.
   */
  maxMs: number;
  /**
   * Cut the wait to the last write's duration (default true). Turn it off when `expected()`
   * counts only items already under way, so a wait is for items that come: cutting it then
   * splits their group, each part waiting for the other's write.
   */
  cutToLastWrite?: boolean;
}

/**
 * Group commit: items submitted while a write is in flight wait and are written together by
 * the next one, so under load one commit (one WAL flush) serves many callers, and alone an
 * item is written at once. With a `CommitHold`, a writer about to write (idle, or done with a
 * write while items wait) first waits, briefly, for the items it expects. Each
 * caller is answered only after its items are written. If a combined write fails for a reason
 * other than an outage, each caller's items are retried on their own, so one bad item cannot
 * fail its neighbours.
 */
export class GroupCommit<T> {
  private pending: Pending<T>[] = [];
  private pendingItems = 0;
  private writers = 0;
  private holdTimer: NodeJS.Timeout | undefined;
  // Duration of the last write, ms: the longest a hold may last.
  private lastWriteMs = 0;

  /**
   * @param maxItems items per write at most
   * @param maxWriters writes in flight at once: above one, a write can start while another
   *   waits for its commit, which helps when commits are slow rather than CPU-bound
   * @param hold when set, an idle writer waits while more items are expected (see `wake`)
   */
  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly maxItems: number,
    private readonly maxWriters = 1,
    private readonly hold?: CommitHold,
  ) {}

  submit(items: T[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ items, resolve, reject });
      this.pendingItems += items.length;
      this.startWriter();
    });
  }

  /** Tells a holding writer that `hold.expected()` may have turned false. */
  wake(): void {
    if (this.holdTimer && !this.holding()) this.release();
  }

  private startWriter(): void {
    if (this.writers >= this.maxWriters) return;
    if (this.holdTimer) {
      if (!this.holding()) this.release();
      return;
    }
    if (this.holding()) this.startHold();
    else void this.flush();
  }

  private startHold(): void {
    const maxMs = this.hold?.maxMs ?? 0;
    this.holdTimer = setTimeout(() => this.release(), this.hold?.cutToLastWrite === false ? maxMs : Math.min(this.lastWriteMs, maxMs));
  }

  private holding(): boolean {
    return this.hold !== undefined && this.pendingItems < this.maxItems && this.hold.expected();
  }

  private release(): void {
    clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    if (this.pending.length > 0 && this.writers < this.maxWriters) void this.flush();
  }

  private async flush(): Promise<void> {
    this.writers++;
    try {
      while (this.pending.length > 0) {
        const batch: Pending<T>[] = [];
        let size = 0;
        while (this.pending.length > 0 && (batch.length === 0 || size + (this.pending[0]?.items.length ?? 0) <= this.maxItems)) {
          const next = this.pending.shift() as Pending<T>;
          batch.push(next);
          size += next.items.length;
        }
        this.pendingItems -= size;
        const started = performance.now();
        await this.writeBatch(batch);
        this.lastWriteMs = performance.now() - started;
        if (this.hold && this.pending.length > 0) {
          // The callers just answered run first (their continuations are microtasks): they
          // may be about to submit more, which `hold.expected()` then knows.
          await new Promise((resolve) => setImmediate(resolve));
          if (this.holding()) {
            this.startHold();
            return;
          }
        }
      }
    } finally {
      this.writers--;
    }
  }

  private async writeBatch(batch: Pending<T>[]): Promise<void> {
    try {
      await this.write(batch.flatMap((p) => p.items));
      for (const p of batch) p.resolve();
    } catch (err) {
      if (batch.length > 1 && !isUnavailableError(err)) {
        for (const p of batch) await this.writeBatch([p]);
      } else {
        for (const p of batch) p.reject(err);
      }
    }
  }
}

/** At most `limit` calls of `run` at once; the rest wait their turn. */
export function createLimiter(limit: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async function run<R>(task: () => Promise<R>): Promise<R> {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}
