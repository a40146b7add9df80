import {
  closeWorkers,
  type Config,
  createLogger,
  createRedis,
  EventQueue,
  keepJobSchedulers,
  type Logger,
  openQueue,
  openWorker,
  queues,
  startWorkerOpsServer,
  WebhookQueue,
} from '@mailroom/core';
import { connectBackends } from '@mailroom/db';
import { createAttemptDeps, deliveryLeaseSeconds } from '@mailroom/webhooks';
import type { Worker } from 'bullmq';
import { claimAhead, DeliveryRunner } from './delivery-runner';
import { createDispatcherMetrics } from './dispatcher-metrics';
import { fanOut } from './fan-out';
import { reconcileDispatcher, type ReconcileResult } from './reconciler';

export interface RunningDispatcher {
  runner: DeliveryRunner;
  /** The ops server's URL (/healthz, /readyz, /metrics) when OPS_PORT is set. */
  opsUrl: string | undefined;
  /** Runs the reconciler now (the schedule runs it every RECONCILE_INTERVAL_SECONDS). */
  reconcile(): Promise<ReconcileResult>;
  /** Stops taking jobs, finishes the posts in flight and records them, then disconnects. */
  stop(): Promise<void>;
}

// Delivery jobs one process works on at once; they hand over and wait for their endpoints to
// drain (at most SETTLE_MAX_MS), so these bound what one process takes from a backlog.
const DELIVERY_JOB_CONCURRENCY = 8;
// The longest a delivery job holds its slot waiting for its endpoints (ms): below the job lock.
const SETTLE_MAX_MS = 5_000;
// Posts in flight in one process, all endpoints together.
const MAX_IN_FLIGHT = 256;
// BullMQ's own lock on an active job (ms).
const MAX_LOCK_MS = 30_000;

export interface DispatcherOptions {
  logger?: Logger;
  /** Posts in flight in this process at most (default MAX_IN_FLIGHT; tests make it small to reach it with little work). */
  maxInFlight?: number;
}

/** Connects and starts the fan-out, the delivery worker and the reconciler schedule. The dispatcher's only entry point. */
export async function startDispatcher(config: Readonly<Config>, options: DispatcherOptions = {}): Promise<RunningDispatcher> {
  const logger = options.logger ?? createLogger({ service: 'webhook-dispatcher', level: config.logLevel, nodeEnv: config.nodeEnv });
  const backends = await connectBackends(config, { logger, prismaPoolSize: 1, poolSize: 12 });
  const { pool, redis: producerRedis, secretKey } = backends;
  const workerRedis = createRedis(config.redisUrl, 'worker', { logger, role: 'workers' });
  const queue = new WebhookQueue(producerRedis, config.queuePrefix);
  const eventQueue = new EventQueue(producerRedis, config.queuePrefix);
  const leaseSeconds = deliveryLeaseSeconds(config);
  const deps = createAttemptDeps({ config, masterSecret: secretKey });
  const metrics = createDispatcherMetrics({ pool, logger });
  const runner = new DeliveryRunner({
    pool,
    deps,
    queue,
    logger: logger.child({ component: 'deliveries' }),
    perEndpoint: config.webhookConcurrencyPerEndpoint,
    maxInFlight: options.maxInFlight ?? MAX_IN_FLIGHT,
    leaseSeconds,
    timeoutSeconds: config.webhookTimeoutSeconds,
    claimAhead: claimAhead({ leaseSeconds, timeoutSeconds: config.webhookTimeoutSeconds, perEndpoint: config.webhookConcurrencyPerEndpoint }),
    onRecorded: (record) => metrics.countAttempt(record),
  });
  const connection = { connection: workerRedis, prefix: config.queuePrefix };
  const lockDuration = Math.min(MAX_LOCK_MS, config.leaseSeconds * 1000);

  const fanOutLogger = logger.child({ component: 'fan-out' });
  // One at a time per process; the cursor row's lock serialises dispatchers.
  const eventsWorker = openWorker(queues.events, () => fanOut({ pool, queue, logger: fanOutLogger }), { ...connection, concurrency: 1 });
  const deliveriesWorker = openWorker(
    queues.webhookDeliveries,
    async (payload) => {
      await runner.run(payload.deliveries);
      await runner.settle(payload.deliveries, SETTLE_MAX_MS);
    },
    { ...connection, concurrency: DELIVERY_JOB_CONCURRENCY, lockDuration, stalledInterval: lockDuration },
  );
  const reconcileLogger = logger.child({ component: 'reconciler' });
  const reconcile = async (graceSeconds = leaseSeconds) => {
    const result = await reconcileDispatcher({ pool, queue, eventQueue, logger: reconcileLogger, graceSeconds });
    // Without grace (after a recover) the deliveries found were asked for, not lost.
    metrics.countReconcile(graceSeconds > 0 ? result : { ...result, stranded: 0 });
    return result;
  };
  const maintenance = openQueue(queues.webhookMaintenance, { connection: producerRedis, prefix: config.queuePrefix });
  // One scheduler for all dispatchers: each tick is one job, so one dispatcher reconciles at a time.
  await keepJobSchedulers(
    maintenance.queue,
    producerRedis,
    [
      {
        id: 'reconcile',
        everyMs: config.reconcileIntervalSeconds * 1000,
        template: { name: queues.webhookMaintenance.name, data: { task: 'reconcile' }, opts: queues.webhookMaintenance.jobOptions },
      },
    ],
    logger,
  );
  // A recover marked its deliveries due now: no grace, they are nobody's yet.
  const maintenanceWorker = openWorker(queues.webhookMaintenance, (payload) => reconcile(payload.task === 'recover' ? 0 : leaseSeconds), {
    ...connection,
    concurrency: 1,
  });
  const workers: Worker[] = [eventsWorker, deliveriesWorker, maintenanceWorker];
  for (const worker of workers) worker.on('failed', (job, err) => logger.error({ err, queue: worker.name, job: job?.id }, 'dispatcher job failed'));

  for (const worker of workers) void worker.run();
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  let stopping = false;
  const ops = await startWorkerOpsServer(config, {
    registry: metrics.registry,
    logger,
    probes: {
      postgres: () => pool.query('SELECT 1'),
      redis: () => producerRedis.ping(),
      migrations: () => backends.migrations.check(),
      isShuttingDown: () => stopping,
    },
  });
  // Events committed while no dispatcher ran wait in the outbox: catch up at once.
  await eventQueue.notify('reconcile');
  logger.info({ perEndpoint: config.webhookConcurrencyPerEndpoint, leaseSeconds }, 'webhook dispatcher started');

  return {
    runner,
    opsUrl: ops?.url,
    reconcile: () => reconcile(),
    async stop() {
      stopping = true;
      // The jobs in hand stop settling and finish; no new ones are taken.
      runner.stopIntake();
      await closeWorkers(workers, workerRedis, { logger });
      await runner.drain();
      await Promise.all([maintenance.close(), queue.close(), eventQueue.close(), deps.client.close()]);
      await ops?.close();
      workerRedis.disconnect();
      await backends.close();
    },
  };
}
