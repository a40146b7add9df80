import type { JobSchedulerTemplateOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from './logger';

/** One repeating job of a queue: its scheduler id, its period (ms) and the job it adds each time. */
export interface JobSchedulerSpec {
  id: string;
  everyMs: number;
  template: { name: string; data: unknown; opts?: JobSchedulerTemplateOptions };
}

/**
 * Upserts a queue's job schedulers now, and again every time `redis` (the connection the queue
 * uses) is ready after a reconnect. The schedulers live only in Redis: one that restarts empty
 * (no persistence, a failover to a replica that lagged) forgets them, and the reconcilers they
 * run, the last resort for every job Redis lost, would otherwise never run again until the
 * process restarts. Upserting an existing scheduler changes nothing.
 */
export async function keepJobSchedulers(
  queue: Queue,
  redis: Redis,
  specs: readonly JobSchedulerSpec[],
  logger: Logger,
): Promise<void> {
  const upsertAll = async () => {
    for (const spec of specs) await queue.upsertJobScheduler(spec.id, { every: spec.everyMs }, spec.template);
  };
  await upsertAll();
  redis.on('ready', () => {
    upsertAll().catch((err: unknown) => logger.warn({ err, queue: queue.name }, 'could not restore the job schedulers after a reconnect'));
  });
}
