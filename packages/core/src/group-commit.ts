import { isUnavailableError } from './unavailable';

interface Pending<T> {
  items: T[];
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit: items submitted while a write is in flight wait and are written together by
 * the next one, so under load one commit (one WAL flush) serves many callers, and alone an
 * item is written at once. Each caller is answered only after its items are written. If a
 * combined write fails for a reason other than an outage, each caller's items are retried on
 * their own, so one bad item cannot fail its neighbours.
 */
export class GroupCommit<T> {
  private pending: Pending<T>[] = [];
  private writers = 0;

  /**
   * @param maxItems items per write at most
   * @param maxWriters writes in flight at once: above one, a write can start while another
   *   waits for its commit, which helps when commits are slow rather than CPU-bound
   */
  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly maxItems: number,
    private readonly maxWriters = 1,
  ) {}

  submit(items: T[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ items, resolve, reject });
      if (this.writers < this.maxWriters) void this.flush();
    });
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
        await this.writeBatch(batch);
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
