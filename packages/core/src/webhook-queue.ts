import type { Redis } from 'ioredis';
import { openQueue, queues, webhookDeliveryJobId } from './queue-catalog';

/** One (event, endpoint) delivery row. */
export interface DeliveryKey {
  eventId: string;
  webhookId: string;
}

/** A delivery and when it is due; its job waits until then. */
export interface DueDelivery extends DeliveryKey {
  dueAt: Date;
}

// Deliveries per job when many are due now (fan-out).
const DELIVERIES_PER_JOB = 50;

/**
 * The producer side of the webhook queues, used by the dispatcher (fan-out, retries, the
 * reconciler) and the gateway (recover wakes the dispatcher).
 */
export class WebhookQueue {
  private readonly deliveries;
  private readonly maintenance;

  constructor(redis: Redis, prefix: string) {
    this.deliveries = openQueue(queues.webhookDeliveries, { connection: redis, prefix });
    this.maintenance = openQueue(queues.webhookMaintenance, { connection: redis, prefix });
  }

  /** Deliveries due now, many to a job. */
  async enqueueNow(deliveries: readonly DeliveryKey[]): Promise<void> {
    if (deliveries.length === 0) return;
    const jobs = [];
    for (let start = 0; start < deliveries.length; start += DELIVERIES_PER_JOB) {
      const slice = deliveries.slice(start, start + DELIVERIES_PER_JOB).map((d) => ({ eventId: d.eventId, webhookId: d.webhookId }));
      jobs.push({ name: queues.webhookDeliveries.name, data: { deliveries: slice }, opts: queues.webhookDeliveries.jobOptions });
    }
    await this.deliveries.queue.addBulk(jobs);
  }

  /**
   * One job per delivery, delayed until it is due. The job id carries the due time, so telling
   * the queue twice about the same due delivery adds one job.
   */
  async enqueueDue(deliveries: readonly DueDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    const now = Date.now();
    await this.deliveries.queue.addBulk(
      deliveries.map((d) => ({
        name: queues.webhookDeliveries.name,
        data: { deliveries: [{ eventId: d.eventId, webhookId: d.webhookId }] },
        opts: {
          ...queues.webhookDeliveries.jobOptions,
          jobId: webhookDeliveryJobId(d.eventId, d.webhookId, d.dueAt),
          delay: Math.max(0, d.dueAt.getTime() - now),
        },
      })),
    );
  }

  /**
   * Asks a dispatcher to reconcile now: after `requestRecovery` marked deliveries in
   * PostgreSQL, so they start without waiting for the next scheduled tick. Losing this wake-up
   * only delays them until that tick.
   */
  async wakeDispatcher(task: 'reconcile' | 'recover' = 'recover'): Promise<void> {
    await this.maintenance.add({ task });
  }

  async close(): Promise<void> {
    await Promise.all([this.deliveries.close(), this.maintenance.close()]);
  }
}
