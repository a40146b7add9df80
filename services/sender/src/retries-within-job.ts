/**
 * Recipients of one email deferred during its send job, tried again within the job when their
 * next attempt falls due while other recipients of the same email are still in flight. The job
 * holds the email (its lease) until its last SMTP transaction ends, and only then gives the
 * deferred recipients back to the queue: without this, an MX that stalls (five minutes for a
 * reply, RFC 5321 §4.5.3.2) held a greylisted co-recipient's retry, due in seconds, as long.
 */
export class RetriesWithinJob<T> {
  private readonly waiting: { item: T; dueAt: number }[] = [];
  private inFlight = 0;
  private readonly wakers = new Set<() => void>();

  /** A worker began an attempt. */
  started(): void {
    this.inFlight += 1;
  }

  /** A worker's attempt ended (recorded or not). */
  finished(): void {
    this.inFlight -= 1;
    this.wake();
  }

  /** An attempt was deferred until `dueAt`. */
  defer(item: T, dueAt: Date): void {
    this.waiting.push({ item, dueAt: dueAt.getTime() });
    this.wake();
  }

  /**
   * The next deferred item once it is due, or null once no attempt of the job is in flight: the
   * job then ends, and the recipients still deferred go back to the queue at their time.
   */
  async next(): Promise<T | null> {
    for (;;) {
      if (this.waiting.length === 0 || this.inFlight === 0) return null;
      this.waiting.sort((a, b) => a.dueAt - b.dueAt);
      const first = this.waiting[0] as { item: T; dueAt: number };
      const wait = first.dueAt - Date.now();
      if (wait <= 0) {
        this.waiting.shift();
        return first.item;
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.wakers.delete(done);
          resolve();
        };
        const timer = setTimeout(done, wait);
        this.wakers.add(done);
      });
    }
  }

  private wake(): void {
    for (const waker of [...this.wakers]) waker();
  }
}
