import type { EventQueue, Logger } from '@mailroom/core';

/**
 * Tells the `events` queue that events were committed, after each commit that appended some.
 * At most one notice is in flight: commits made meanwhile share the next one, which is sent
 * after it (the dispatcher reads everything committed when it wakes, so one notice covers
 * them all). A failed notice is logged and dropped; the outbox reconciler finds the events.
 */
export class EventNotifier {
  private inFlight: Promise<void> | null = null;
  private again = false;

  constructor(private readonly queue: Pick<EventQueue, 'notify'>, private readonly logger: Logger) {}

  /** Call after the transaction that appended events committed. Never throws, never waits. */
  committed(): void {
    if (this.inFlight) {
      this.again = true;
      return;
    }
    this.inFlight = this.send();
  }

  /** Waits for the notices in flight, e.g. before closing the queue. */
  async settled(): Promise<void> {
    await this.inFlight;
  }

  private async send(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.queue.notify('appended');
      } catch (err) {
        this.logger.warn({ err }, 'events queue not notified; the outbox reconciler will catch up');
      }
    } while (this.again);
    this.inFlight = null;
  }
}
