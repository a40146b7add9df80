import type { Redis } from 'ioredis';
import { openQueue, queues, sendJobId } from './queue-catalog';

export interface SendJob {
  emailId: string;
  /** When the email is due; the job waits until then. */
  dueAt: Date;
}

/**
 * The producer side of the send queue, used by the gateway (new emails), the sender (retries)
 * and the reconciler. Job ids carry the due time, so telling the queue twice about the same
 * due email adds one job.
 */
export class SendQueue {
  private readonly producer;

  constructor(private readonly redis: Redis, prefix: string) {
    this.producer = openQueue(queues.send, { connection: redis, prefix });
  }

  /** False while Redis is unreachable: callers refuse new work rather than store it half-way. */
  isReady(): boolean {
    return this.redis.status === 'ready';
  }

  async enqueue(jobs: readonly SendJob[]): Promise<void> {
    if (jobs.length === 0) return;
    const now = Date.now();
    await this.producer.queue.addBulk(
      jobs.map((job) => ({
        name: queues.send.name,
        data: queues.send.payload.parse({ emailId: job.emailId }),
        opts: { ...queues.send.jobOptions, jobId: sendJobId(job.emailId, job.dueAt), delay: Math.max(0, job.dueAt.getTime() - now) },
      })),
    );
  }

  close(): Promise<void> {
    return this.producer.close();
  }
}
