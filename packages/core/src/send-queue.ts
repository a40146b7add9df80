import type { Redis } from 'ioredis';
import { openQueue, queues, sendJobId } from './queue-catalog';

export interface DueEmail {
  emailId: string;
  /** When the email is due; the job waits until then. */
  dueAt: Date;
}

/**
 * The producer side of the send queue, used by the gateway (new emails), the sender (retries)
 * and the reconciler.
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

  /** New emails, due now, as one job. */
  async enqueueNow(emailIds: readonly string[]): Promise<void> {
    if (emailIds.length === 0) return;
    await this.producer.add({ emailIds: [...emailIds] });
  }

  /**
   * One job per email, delayed until it is due. The job id carries the due time, so telling
   * the queue twice about the same due email adds one job.
   */
  async enqueueDue(emails: readonly DueEmail[]): Promise<void> {
    if (emails.length === 0) return;
    const now = Date.now();
    await this.producer.queue.addBulk(
      emails.map((email) => ({
        name: queues.send.name,
        data: queues.send.payload.parse({ emailIds: [email.emailId] }),
        opts: { ...queues.send.jobOptions, jobId: sendJobId(email.emailId, email.dueAt), delay: Math.max(0, email.dueAt.getTime() - now) },
      })),
    );
  }

  close(): Promise<void> {
    return this.producer.close();
  }
}
