import { Queue, Worker, type ConnectionOptions, type Job, type JobsOptions, type WorkerOptions } from 'bullmq';
import type { z } from 'zod';

/**
 * One queue: its name, the schema of its payload and its retry policy. Declared once in
 * `queues` below and imported by both producers and workers.
 */
export interface QueueDefinition<Schema extends z.ZodType> {
  name: string;
  payload: Schema;
  jobOptions: JobsOptions;
}

export function defineQueue<Schema extends z.ZodType>(definition: QueueDefinition<Schema>): QueueDefinition<Schema> {
  return Object.freeze(definition);
}

/** The catalog. Later features add their queues here (send, webhook delivery, inbound processing). */
export const queues = {} satisfies Record<string, QueueDefinition<z.ZodType>>;

export interface QueueConnection {
  connection: ConnectionOptions;
  prefix: string;
}

/** A producer for one catalog queue; payloads are validated before they are enqueued. */
export function openQueue<Schema extends z.ZodType>(definition: QueueDefinition<Schema>, options: QueueConnection) {
  const queue = new Queue(definition.name, { ...options, defaultJobOptions: definition.jobOptions });
  return {
    queue,
    add(payload: z.input<Schema>, jobOptions?: JobsOptions) {
      return queue.add(definition.name, definition.payload.parse(payload), jobOptions);
    },
    close: () => queue.close(),
  };
}

/** A worker for one catalog queue; each job's payload is parsed with the queue's schema on pickup. */
export function openWorker<Schema extends z.ZodType>(
  definition: QueueDefinition<Schema>,
  handler: (payload: z.output<Schema>, job: Job) => Promise<unknown>,
  options: QueueConnection & Omit<WorkerOptions, 'connection' | 'prefix' | 'autorun'>,
): Worker {
  return new Worker(definition.name, (job) => handler(definition.payload.parse(job.data), job), {
    ...options,
    autorun: false,
  });
}
