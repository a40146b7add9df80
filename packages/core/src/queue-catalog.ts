import { Queue, Worker, type ConnectionOptions, type Job, type JobsOptions, type WorkerOptions } from 'bullmq';
import { z } from 'zod';
import { countRunning } from './close-workers';
import { queueErrorListener } from './redis';

/**
 * One queue: its name, the schema of its payload and its retry policy. Declared once in
 * `queues` below and imported by both producers and workers.
 */
export interface QueueDefinition<Schema extends z.ZodType> {
  name: string;
  payload: Schema;
  jobOptions: JobsOptions;
}

function defineQueue<Schema extends z.ZodType>(definition: QueueDefinition<Schema>): QueueDefinition<Schema> {
  return Object.freeze(definition);
}

/**
 * The catalog. PostgreSQL holds the truth about every job: a lost job is found again by the
 * reconciler, so finished jobs are not kept in Redis.
 */
export const queues = {
  /**
   * Emails to work on: their due recipients are attempted. New sends travel many to a job (one
   * job per group commit); retries and reconciled emails one to a job, whose id carries the
   * due time.
   */
  send: defineQueue({
    name: 'send',
    payload: z.object({ emailIds: z.array(z.string()).min(1).max(1000) }),
    jobOptions: {
      removeOnComplete: true,
      removeOnFail: true,
      // A job fails only when the worker itself broke (database down, crash); delivery
      // outcomes are recorded, not thrown. Retry such failures a few times, then leave
      // the email to the reconciler.
      attempts: 5,
      backoff: { type: 'exponential', delay: 2_000 },
    },
  }),
  /**
   * Sender housekeeping on a schedule: re-enqueue emails whose job was lost or whose worker
   * died; look up the records of sending domains whose check is due; add the outbox's new
   * events to the hourly stats rollup; delete expired Idempotency-Key records, and sent emails,
   * events and the webhook log past EMAIL_RETENTION_DAYS.
   */
  senderMaintenance: defineQueue({
    name: 'sender-maintenance',
    payload: z.object({ task: z.enum(['reconcile', 'check-domains', 'roll-up-stats', 'purge-idempotency-keys', 'retention']) }),
    jobOptions: { removeOnComplete: true, removeOnFail: true, attempts: 1 },
  }),
  /**
   * Wake-ups for the event dispatcher: events were committed to the outbox (or the reconciler
   * found some unread). The payload carries no events; the dispatcher reads the outbox.
   */
  events: defineQueue({
    name: 'events',
    payload: z.object({ reason: z.enum(['appended', 'reconcile']) }),
    // A lost or failed wake-up is caught by the outbox reconciler, so none is retried long.
    jobOptions: { removeOnComplete: true, removeOnFail: true, attempts: 3, backoff: { type: 'exponential', delay: 1_000 } },
  }),
  /**
   * Received messages to parse and authenticate, after their raw bytes were committed and the
   * SMTP 250 given. Many to a job (one job per group commit); the reconciler re-enqueues any
   * whose processing was interrupted.
   */
  inbound: defineQueue({
    name: 'inbound',
    payload: z.object({ receivedEmailIds: z.array(z.string()).min(1).max(1000) }),
    jobOptions: { removeOnComplete: true, removeOnFail: true, attempts: 5, backoff: { type: 'exponential', delay: 2_000 } },
  }),
  /** Inbound housekeeping on a schedule: finish interrupted processing, delete mail past retention. */
  inboundMaintenance: defineQueue({
    name: 'inbound-maintenance',
    payload: z.object({ task: z.enum(['reconcile', 'retention']) }),
    jobOptions: { removeOnComplete: true, removeOnFail: true, attempts: 1 },
  }),
  /**
   * (event, endpoint) deliveries to attempt, identified by their row in `webhook_deliveries`
   * (the truth: a job whose row is no longer pending and due does nothing). Fan-out sends many
   * to a job; retries, deferrals and reconciled deliveries one to a job, whose id carries the
   * due time.
   */
  webhookDeliveries: defineQueue({
    name: 'webhook-deliveries',
    payload: z.object({
      deliveries: z.array(z.object({ eventId: z.string(), webhookId: z.string() })).min(1).max(1000),
    }),
    // A job fails only when the dispatcher itself broke (database down); the reconciler finds
    // the rows again after a few quick retries.
    jobOptions: { removeOnComplete: true, removeOnFail: true, attempts: 3, backoff: { type: 'exponential', delay: 2_000 } },
  }),
  /**
   * Dispatcher housekeeping: the scheduled reconcile (outbox, lost deliveries, endpoints failing
   * five days), also asked for at once by `recover` so its deliveries start without waiting.
   */
  webhookMaintenance: defineQueue({
    name: 'webhook-maintenance',
    payload: z.object({ task: z.enum(['reconcile', 'recover']) }),
    jobOptions: { removeOnComplete: true, removeOnFail: true, attempts: 1 },
  }),
} satisfies Record<string, QueueDefinition<z.ZodType>>;

/** The job id of one delivery's job, unique per due time so a retry is a new job. */
export const webhookDeliveryJobId = (eventId: string, webhookId: string, dueAt: Date) => `${eventId}.${webhookId}.${dueAt.getTime()}`;

/** The job id of an email's send job, unique per due time so a retry is a new job. */
export const sendJobId = (emailId: string, dueAt: Date) => `${emailId}-${dueAt.getTime()}`;

export interface QueueConnection {
  connection: ConnectionOptions;
  prefix: string;
}

/**
 * A producer for one catalog queue; payloads are validated before they are enqueued. Its errors
 * are reported through its connection's logger (see queueErrorListener).
 */
export function openQueue<Schema extends z.ZodType>(definition: QueueDefinition<Schema>, options: QueueConnection) {
  const queue = new Queue(definition.name, { ...options, defaultJobOptions: definition.jobOptions });
  queue.on('error', queueErrorListener(options.connection, definition.name));
  return {
    queue,
    add(payload: z.input<Schema>, jobOptions?: JobsOptions) {
      return queue.add(definition.name, definition.payload.parse(payload), jobOptions);
    },
    close: () => queue.close(),
  };
}

/**
 * A worker for one catalog queue; each job's payload is parsed with the queue's schema on pickup.
 * Its errors are reported through its connection's logger (see queueErrorListener). Close it
 * with closeWorkers, which knows when its jobs in hand are done.
 */
export function openWorker<Schema extends z.ZodType>(
  definition: QueueDefinition<Schema>,
  handler: (payload: z.output<Schema>, job: Job) => Promise<unknown>,
  options: QueueConnection & Omit<WorkerOptions, 'connection' | 'prefix' | 'autorun'>,
): Worker {
  const worker: Worker = new Worker(definition.name, (job) => countRunning(worker, async () => handler(definition.payload.parse(job.data), job)), {
    ...options,
    autorun: false,
  });
  worker.on('error', queueErrorListener(options.connection, definition.name));
  return worker;
}
