import type { Logger } from './logger';

export interface EventNoticesOptions {
  /** Tells the `events` queue that events were committed (EventQueue.notify). */
  notify(): Promise<void>;
  logger: Logger;
  /** How often a notice Redis did not take is tried again, in ms (default 1000). */
  retryMs?: number;
}

const DEFAULT_RETRY_MS = 1_000;

/**
 * Wakes the webhook dispatcher (the `events` queue) after a producer's transaction appended
 * events, without making the producer wait for Redis: a paused or unreachable Redis (each
 * command then waits out its 2 s timeout) would otherwise hold every next write back. One
 * notice is in flight at a time, and one more is owed for everything committed meanwhile (the
 * dispatcher reads all that is committed when it wakes); a notice Redis did not take stays owed
 * and is tried again every `retryMs`, so the dispatcher hears of what was written while Redis
 * was away as soon as it is back (the outbox reconciler is the last resort).
 */
export class EventNotices {
  private owed = false;
  private sending: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly retryMs: number;

  constructor(private readonly options: EventNoticesOptions) {
    this.retryMs = options.retryMs ?? DEFAULT_RETRY_MS;
  }

  start(): void {
    this.timer ??= setInterval(() => {
      if (this.owed) this.send();
    }, this.retryMs);
    this.timer.unref();
  }

  /** Call after a transaction that appended events committed: the dispatcher is told, now or as soon as the notice in flight is done. Returns at once. */
  committed(): void {
    this.owed = true;
    this.send();
  }

  /** Stops retrying; waits for the notices in flight and sends one still owed, once. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    while (this.sending !== null) await this.sending;
    if (this.owed) {
      this.send();
      await this.sending;
    }
  }

  private send(): void {
    if (this.sending !== null) return;
    this.owed = false;
    this.sending = this.options.notify().then(
      () => {
        this.sending = null;
        // Batches committed while it was in flight may not have been read when it arrived.
        if (this.owed) this.send();
      },
      (err: unknown) => {
        this.sending = null;
        this.owed = true;
        this.options.logger.warn({ err }, 'events queue not notified; retrying (the outbox reconciler also catches up)');
      },
    );
  }
}
