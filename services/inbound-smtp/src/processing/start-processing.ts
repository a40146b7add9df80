import { closeWorkers, type Config, EventQueue, keepJobSchedulers, type Logger, openQueue, openWorker, queues, type Verp } from '@mailroom/core';
import { deleteExpiredReceivedEmails, type Pool } from '@mailroom/db';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import { type ProcessingDeps, ProcessingFailedError, processReceivedEmails } from './process-received';
import { createProcessingMetrics } from './processing-metrics';
import { RECONCILE_GRACE_SECONDS, reconcileReceived } from './reconcile-received';

export interface ProcessingOptions {
  config: Pick<Readonly<Config>, 'queuePrefix' | 'inboundConcurrency' | 'reconcileIntervalSeconds' | 'inboundRetentionDays' | 'dnsServers' | 'smtpHostname'> &
    // Loaded configs always have it; without it feedback is stored but turns into no outcome.
    Partial<Pick<Readonly<Config>, 'publicApiUrl'>>;
  pool: Pool;
  /** For retention, whose statements may run longer than a request's (see connectBackends); `pool` when absent. */
  maintenancePool?: Pool;
  /** A BullMQ 'worker' connection (no command timeout): the workers block on it. */
  redis: Redis;
  /** For producing (events wake-ups, reconciled jobs, schedules); `redis` when absent. */
  producerRedis?: Redis;
  logger: Logger;
  /** Our host name in Authentication-Results; the machine's when absent. */
  mta?: string;
  /** Per-query DNS timeout and per-message DNS budget, in ms (defaults: 1.5 s and 8 s). */
  dnsTimeoutMs?: number;
  dnsBudgetMs?: number;
  /** Reads VERP return paths inside complaint reports to fbl@ (their Message-ID matches without it). */
  verp?: Verp;
  /** Seconds an unprocessed message is left to its own job before the reconciler takes it (default: 30, or RECONCILE_INTERVAL_SECONDS when shorter). */
  reconcileGraceSeconds?: number;
  /** The service's registry, for processing's metrics and the `inbound` backlog; none when absent. */
  registry?: Registry;
}

export interface RunningProcessing {
  /** Runs the reconciler now (the schedule runs it every RECONCILE_INTERVAL_SECONDS). */
  reconcile(): Promise<number>;
  /** Deletes received mail past INBOUND_RETENTION_DAYS now (the schedule runs it hourly). */
  deleteExpired(): Promise<number>;
  stop(): Promise<void>;
}

const RETENTION_EVERY_MS = 60 * 60 * 1000;
// Parsing a big message and its DNS budget fit well inside; BullMQ renews the lock at half.
const LOCK_MS = 60_000;

/**
 * Starts the work after the SMTP 250: a worker on the `inbound` queue that parses and
 * authenticates received mail and records `email.received`, and the `inbound-maintenance`
 * schedule (reconcile every RECONCILE_INTERVAL_SECONDS, retention hourly).
 */
export async function startProcessing(options: ProcessingOptions): Promise<RunningProcessing> {
  const { config, pool, redis } = options;
  const producerRedis = options.producerRedis ?? redis;
  const logger = options.logger.child({ component: 'inbound-processing' });
  const eventQueue = new EventQueue(producerRedis, config.queuePrefix);
  const connection = { connection: redis, prefix: config.queuePrefix };
  const metrics = options.registry ? createProcessingMetrics(options.registry, { pool, logger }) : undefined;
  const deps: ProcessingDeps = {
    pool,
    eventQueue,
    logger,
    mta: options.mta ?? config.smtpHostname,
    dnsServers: config.dnsServers,
    dnsTimeoutMs: options.dnsTimeoutMs,
    dnsBudgetMs: options.dnsBudgetMs,
    feedback:
      config.publicApiUrl === undefined
        ? undefined
        : { publicApiUrl: config.publicApiUrl, verp: options.verp, onOutcome: metrics && ((outcome) => metrics.countFeedback(outcome)) },
  };

  const worker = openWorker(
    queues.inbound,
    async (payload) => {
      const summary = await processReceivedEmails(deps, payload.receivedEmailIds);
      metrics?.countProcessed(summary);
      if (summary.failed.length > 0) throw new ProcessingFailedError(`${summary.failed.length} received email(s) failed; retrying`);
      return summary.stored.length;
    },
    { ...connection, concurrency: config.inboundConcurrency, lockDuration: LOCK_MS },
  );
  worker.on('failed', (job, err) => logger.warn({ err: err.message, emails: job?.data.receivedEmailIds?.length }, 'inbound job failed'));

  const inbound = openQueue(queues.inbound, { connection: producerRedis, prefix: config.queuePrefix });
  // A short reconcile interval (tests, impatient operators) shortens the grace with it.
  const grace = options.reconcileGraceSeconds ?? Math.min(RECONCILE_GRACE_SECONDS, config.reconcileIntervalSeconds);
  const reconcile = async () => {
    const found = await reconcileReceived(pool, inbound, logger, grace);
    metrics?.countRecovered(found);
    return found;
  };
  const deleteExpired = async () => {
    const deleted = await deleteExpiredReceivedEmails(options.maintenancePool ?? pool, { olderThanDays: config.inboundRetentionDays });
    if (deleted > 0) logger.info({ deleted, retentionDays: config.inboundRetentionDays }, 'deleted received mail past retention');
    return deleted;
  };

  const maintenance = openQueue(queues.inboundMaintenance, { connection: producerRedis, prefix: config.queuePrefix });
  // One scheduler per task for all inbound processes: each tick is one job, run by one of them.
  await keepJobSchedulers(
    maintenance.queue,
    producerRedis,
    (['reconcile', 'retention'] as const).map((task) => ({
      id: task,
      everyMs: task === 'reconcile' ? config.reconcileIntervalSeconds * 1000 : RETENTION_EVERY_MS,
      template: { name: queues.inboundMaintenance.name, data: { task }, opts: queues.inboundMaintenance.jobOptions },
    })),
    logger,
  );
  const maintenanceWorker = openWorker(queues.inboundMaintenance, (payload) => (payload.task === 'reconcile' ? reconcile() : deleteExpired()), {
    ...connection,
    concurrency: 1,
  });
  maintenanceWorker.on('failed', (job, err) => logger.warn({ err: err.message, task: job?.data.task }, 'inbound maintenance failed'));

  void worker.run();
  void maintenanceWorker.run();
  await Promise.all([worker.waitUntilReady(), maintenanceWorker.waitUntilReady()]);
  logger.info({ concurrency: config.inboundConcurrency, retentionDays: config.inboundRetentionDays }, 'inbound processing started');

  return {
    reconcile,
    deleteExpired,
    async stop() {
      // Finishes the jobs in hand; no new ones are taken.
      await closeWorkers([worker, maintenanceWorker], redis, { logger });
      await Promise.all([inbound.close(), maintenance.close(), eventQueue.close()]);
    },
  };
}
