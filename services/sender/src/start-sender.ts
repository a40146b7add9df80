import { hostname } from 'node:os';
import {
  closeWorkers,
  createLogger,
  createResolver,
  createRedis,
  createLimiter,
  deriveKey,
  domainDnsSettings,
  EventNotices,
  EventQueue,
  GroupCommit,
  keepJobSchedulers,
  openQueue,
  openWorker,
  queues,
  SendQueue,
  startWorkerOpsServer,
  TrackingTokens,
  type Config,
  type Logger,
  Verp,
} from '@mailroom/core';
import {
  connectBackends,
  deleteExpiredEmails,
  deleteExpiredEvents,
  deleteExpiredWebhookLog,
  purgeExpiredIdempotencyKeys,
  recordOutcomes,
  rollUpAllStats,
  type OutcomeRecord,
} from '@mailroom/db';
import { checkDueDomains } from './check-due-domains';
import type { Worker } from 'bullmq';
import { Deliverer } from './delivery';
import { HtmlTracking } from './message/tracking/track-html';
import { processSendJob, type ProcessDeps } from './process-email';
import { reconcileSends } from './reconciler';
import { createSenderMetrics } from './sender-metrics';
import { SendStore } from './send-store';
import { SigningDomains } from './signing-domains';

/** What one retention run deleted. */
export interface ExpiredRows {
  emails: number;
  events: number;
  webhookAttempts: number;
  webhookDeliveries: number;
}

export interface RunningSender {
  worker: Worker;
  deps: ProcessDeps;
  /** The ops server's URL (/healthz, /readyz, /metrics) when OPS_PORT is set. */
  opsUrl: string | undefined;
  /** Runs the reconciler now (the schedule runs it every RECONCILE_INTERVAL_SECONDS). */
  reconcile(): Promise<number>;
  /** Checks the sending domains whose check is due now (the schedule does every RECONCILE_INTERVAL_SECONDS). Returns how many. */
  checkDomains(): Promise<number>;
  /** Adds the outbox's new events to the stats rollup now (the schedule does every 10 s). Returns how many were read. */
  rollUpStats(): Promise<number>;
  /** Deletes expired Idempotency-Key records now (the schedule does every RECONCILE_INTERVAL_SECONDS). Returns how many. */
  purgeIdempotencyKeys(): Promise<number>;
  /** Deletes sent emails, events and the webhook log past EMAIL_RETENTION_DAYS now (the schedule does hourly). */
  deleteExpired(): Promise<ExpiredRows>;
  stop(): Promise<void>;
}

// BullMQ's own lock on an active job: no longer than our lease, so a dead worker's job is
// handed back about when its lease expires.
const MAX_LOCK_MS = 30_000;
// A process keeps this many rounds of its SENDER_CONCURRENCY slots from one job, and hands the
// rest of the job's emails back to the queue (see ProcessDeps.emailsPerJob).
const EMAIL_ROUNDS_PER_JOB = 2;
// Recipient outcomes per transaction.
const MAX_OUTCOMES_PER_COMMIT = 500;
// How often the stats rollup catches up with the outbox: GET /stats aggregates the events past
// its cursor live, so this bounds that tail to about 10 s of events.
const STATS_ROLLUP_EVERY_MS = 10_000;
// How often rows past EMAIL_RETENTION_DAYS are looked for.
const RETENTION_EVERY_MS = 60 * 60 * 1000;

/** Connects and starts the send worker and the reconciler schedule. The sender's only entry point. */
export async function startSender(config: Readonly<Config>, options: { logger?: Logger } = {}): Promise<RunningSender> {
  const logger = options.logger ?? createLogger({ service: 'sender', level: config.logLevel, nodeEnv: config.nodeEnv });
  const backends = await connectBackends(config, { logger, prismaPoolSize: 2, poolSize: Math.min(20, config.senderConcurrency + 2) });
  const { pool, maintenancePool, redis: producerRedis, secretKey } = backends;
  const workerRedis = createRedis(config.redisUrl, 'worker', { logger, role: 'workers' });
  let stopping = false;
  const owner = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  const sendQueue = new SendQueue(producerRedis, config.queuePrefix);
  const eventQueue = new EventQueue(producerRedis, config.queuePrefix);
  const events = new EventNotices({ notify: () => eventQueue.notify('appended'), logger: logger.child({ component: 'events' }) });
  events.start();
  const metrics = createSenderMetrics({ pool, logger });
  /** Every outcome the sender has (attempts, suppressed recipients, test addresses' simulated ones) is written here. */
  const writeOutcomes = async (records: OutcomeRecord[]) => {
    if ((await recordOutcomes(pool, records)) > 0) events.committed();
    metrics.countOutcomes(records);
  };
  const tracking = new HtmlTracking({ tokens: new TrackingTokens(deriveKey(secretKey, 'tracking')), baseUrl: config.trackingBaseUrl });
  const deps: ProcessDeps = {
    store: new SendStore(pool, owner, config.leaseSeconds),
    deliverer: new Deliverer({
      outboundSmtpUrl: config.outboundSmtpUrl,
      mxPort: config.mxPort,
      dnsServers: config.dnsServers,
      allowPrivateNetworks: config.allowPrivateNetworks,
      heloName: config.smtpHostname,
      logger,
      observe: (outcome, seconds) => metrics.observeTransaction(outcome, seconds),
    }),
    verp: new Verp(deriveKey(secretKey, 'verp'), config.bounceDomain),
    sendQueue,
    outcomes: new GroupCommit<OutcomeRecord>(writeOutcomes, MAX_OUTCOMES_PER_COMMIT),
    limit: createLimiter(config.senderConcurrency),
    emailsPerJob: EMAIL_ROUNDS_PER_JOB * config.senderConcurrency,
    logger: logger.child({ component: 'send' }),
    smtpRetrySchedule: config.smtpRetrySchedule,
    leaseSeconds: config.leaseSeconds,
    held: new Set(),
    stopping: () => stopping,
    // Only emails with tracking on get per-recipient HTML; the others keep the one compiled message.
    personalizeHtml: (email) => tracking.forEmail(email),
    signing: new SigningDomains({ db: pool, encryptionKey: deriveKey(secretKey, 'encryption'), returnPathLabel: config.returnPathLabel }),
    requireVerifiedDomains: config.requireVerifiedDomains,
  };
  const lockDuration = Math.min(MAX_LOCK_MS, config.leaseSeconds * 1000);
  const connection = { connection: workerRedis, prefix: config.queuePrefix };

  const worker = openWorker(queues.send, (payload) => processSendJob(deps, payload.emailIds), {
    ...connection,
    concurrency: config.senderConcurrency,
    lockDuration,
    stalledInterval: lockDuration,
  });
  worker.on('failed', (job, err) => logger.error({ err, emails: job?.data.emailIds?.length }, 'send job failed'));

  const reconcileLogger = logger.child({ component: 'reconciler' });
  const reconcile = async () => {
    const found = await reconcileSends(pool, sendQueue, reconcileLogger, config.leaseSeconds);
    metrics.countRecovered(found);
    return found;
  };
  const domainChecks = { pool, resolver: createResolver(config.dnsServers), settings: domainDnsSettings(config), logger: logger.child({ component: 'domains' }) };
  const checkDomains = async () => {
    const { checked, events: appended } = await checkDueDomains(domainChecks);
    if (appended > 0) events.committed();
    return checked;
  };
  const rollUpStats = () => rollUpAllStats(maintenancePool);
  const idempotencyLogger = logger.child({ component: 'idempotency-keys' });
  const purgeIdempotencyKeys = async () => {
    const deleted = await purgeExpiredIdempotencyKeys(maintenancePool);
    if (deleted > 0) idempotencyLogger.info({ deleted }, 'deleted expired idempotency keys');
    return deleted;
  };
  const retentionLogger = logger.child({ component: 'retention' });
  const deleteExpired = async (): Promise<ExpiredRows> => {
    const olderThanDays = config.emailRetentionDays;
    // Emails first (their events go with them), then the other events, then the webhook log
    // (whose deliveries of deleted events the two before have stopped).
    const emails = await deleteExpiredEmails(maintenancePool, { olderThanDays });
    const events = await deleteExpiredEvents(maintenancePool, { olderThanDays });
    const { attempts, deliveries } = await deleteExpiredWebhookLog(maintenancePool, { olderThanDays });
    const deleted = { emails, events, webhookAttempts: attempts, webhookDeliveries: deliveries };
    if (Object.values(deleted).some((n) => n > 0)) retentionLogger.info({ ...deleted, retentionDays: olderThanDays }, 'deleted rows past retention');
    return deleted;
  };
  const maintenance = openQueue(queues.senderMaintenance, { connection: producerRedis, prefix: config.queuePrefix });
  // One scheduler per task for all senders: each tick is one job, so one sender runs it at a time.
  const reconcileEvery = config.reconcileIntervalSeconds * 1000;
  const every = {
    reconcile: reconcileEvery,
    'check-domains': reconcileEvery,
    'roll-up-stats': STATS_ROLLUP_EVERY_MS,
    // Expired keys are already ignored; this only keeps the table from growing. A run that finds
    // none is one probe of the created_at index.
    'purge-idempotency-keys': reconcileEvery,
    retention: RETENTION_EVERY_MS,
  };
  const scheduled = ['reconcile', 'check-domains', 'roll-up-stats', 'purge-idempotency-keys', 'retention'] as const;
  await keepJobSchedulers(
    maintenance.queue,
    producerRedis,
    scheduled.map((task) => ({
      id: task,
      everyMs: every[task],
      template: { name: queues.senderMaintenance.name, data: { task }, opts: queues.senderMaintenance.jobOptions },
    })),
    logger,
  );
  const tasks = {
    reconcile,
    'check-domains': checkDomains,
    'roll-up-stats': rollUpStats,
    'purge-idempotency-keys': purgeIdempotencyKeys,
    retention: deleteExpired,
  };
  const maintenanceWorker = openWorker(queues.senderMaintenance, (payload) => tasks[payload.task](), {
    ...connection,
    concurrency: 1,
  });
  maintenanceWorker.on('failed', (job, err) => logger.warn({ err: err.message, task: job?.data.task }, 'sender maintenance failed'));

  void worker.run();
  void maintenanceWorker.run();
  await worker.waitUntilReady();
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
  logger.info({ concurrency: config.senderConcurrency, mode: config.outboundSmtpUrl ? 'smarthost' : 'direct MX' }, 'sender started');

  return {
    worker,
    deps,
    opsUrl: ops?.url,
    reconcile,
    checkDomains,
    rollUpStats,
    purgeIdempotencyKeys,
    deleteExpired,
    async stop() {
      stopping = true;
      // Finishes the jobs in hand; no new ones are taken.
      await closeWorkers([worker, maintenanceWorker], workerRedis, { logger });
      await events.stop();
      await Promise.all([maintenance.close(), sendQueue.close(), eventQueue.close(), deps.deliverer.close()]);
      await ops?.close();
      workerRedis.disconnect();
      await backends.close();
    },
  };
}
