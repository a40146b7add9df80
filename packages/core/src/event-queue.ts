import type { Redis } from 'ioredis';
import { openQueue, queues } from './queue-catalog';

/** Why the `events` queue was told: a producer committed events, or the reconciler found some waiting. */
export type EventNotice = 'appended' | 'reconcile';

/**
 * The producer side of the `events` queue. A job is a wake-up, not the events themselves:
 * the outbox in PostgreSQL is the truth, and the dispatcher reads it from its own cursor
 * (`readOutbox`), so a duplicate notice costs one empty read and a lost one is found by
 * `reconcileOutbox`.
 */
export class EventQueue {
  private readonly producer;

  constructor(redis: Redis, prefix: string) {
    this.producer = openQueue(queues.events, { connection: redis, prefix });
  }

  /** Call after the transaction that appended events has committed, never inside it. */
  async notify(reason: EventNotice = 'appended'): Promise<void> {
    await this.producer.add({ reason });
  }

  close(): Promise<void> {
    return this.producer.close();
  }
}
