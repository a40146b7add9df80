import {
  type Config,
  createLogger,
  createRedis,
  createServiceRegistry,
  deriveKey,
  type Logger,
  startWorkerOpsServer,
  Verp,
} from '@mailroom/core';
import { type Backends, connectBackends } from '@mailroom/db';
import type { Registry } from 'prom-client';
import { type RunningProcessing, startProcessing } from './processing';
import { type RunningMx, startMx } from './smtp/start-mx';

// How long stop() lets messages in DATA finish, in ms: within Kubernetes' default 30 s grace period.
const DRAIN_TIMEOUT_MS = 25_000;
// How long stop() then lets the processing finish the jobs in hand, in ms. BullMQ's workers wait
// for Redis without end when closing during an outage, so without a bound a SIGTERM while Redis
// is down never ends the process. What is cut off stays unprocessed for the reconciler
// (processing is idempotent).
const PROCESSING_STOP_MS = 3_000;

export interface InboundOptions {
  logger?: Logger;
  /** Interface to listen on (default all). */
  host?: string;
  /** How long stop() waits for messages in DATA (default 25 s). */
  drainTimeoutMs?: number;
  /** How long stop() then waits for the processing's jobs in hand (default 3 s after the MX's drain, 25 s without an MX). */
  processingStopMs?: number;
}

export interface RunningInbound {
  /** The SMTP port (SMTP_PORT, or the one picked for port 0); 0 when INBOUND_ROLE=processing. */
  port: number;
  backends: Backends;
  registry: Registry;
  /** The ops server's URL (/healthz, /readyz, /metrics) when OPS_PORT is set. */
  opsUrl: string | undefined;
  /** The work after the 250 (parsing, authentication, events, reconciler, retention); absent when INBOUND_ROLE=smtp. */
  processing: RunningProcessing | undefined;
  /** Drains (421 to new connections, messages in DATA finish) and closes everything. */
  stop(): Promise<void>;
}

/**
 * Connects and starts the inbound service: by INBOUND_ROLE, the MX on SMTP_PORT (`smtp`), the
 * processing after the 250 (`processing`), or both (`all`, the default); and the ops server on
 * OPS_PORT when set. The inbound service's only entry point.
 */
export async function startInbound(config: Readonly<Config>, options: InboundOptions = {}): Promise<RunningInbound> {
  const logger = options.logger ?? createLogger({ service: 'inbound-smtp', level: config.logLevel, nodeEnv: config.nodeEnv });
  const backends = await connectBackends(config, { logger, prismaPoolSize: 1, poolSize: 10 });
  const { pool, redis, secretKey } = backends;
  const registry = createServiceRegistry('inbound-smtp');
  const verp = new Verp(deriveKey(secretKey, 'verp'), config.bounceDomain, config.returnPathLabel);
  const role = config.inboundRole;
  let mx: RunningMx | undefined;
  let processing: RunningProcessing | undefined;
  let stopping = false;
  // BullMQ workers block on their connection, so they get their own ('worker': waits through reconnects).
  const workerRedis = role === 'smtp' ? undefined : createRedis(config.redisUrl, 'worker', { logger, role: 'workers' });
  try {
    if (role !== 'processing') {
      mx = await startMx({ config, backends, verp, registry, logger: logger.child({ component: 'smtp' }), host: options.host });
    }
    if (workerRedis) {
      processing = await startProcessing({ config, pool, maintenancePool: backends.maintenancePool, redis: workerRedis, producerRedis: redis, logger, verp, registry });
    }
  } catch (err) {
    await mx?.stop(0);
    workerRedis?.disconnect();
    await backends.close();
    throw err;
  }
  const ops = await startWorkerOpsServer(config, {
    host: options.host,
    registry,
    logger,
    probes: {
      postgres: () => pool.query('SELECT 1'),
      redis: () => redis.ping(),
      migrations: () => backends.migrations.check(),
      isShuttingDown: () => stopping || (mx?.isDraining() ?? false),
    },
  });
  logger.info({ role }, 'inbound SMTP started');

  return {
    port: mx?.port ?? 0,
    backends,
    registry,
    opsUrl: ops?.url,
    processing,
    async stop() {
      stopping = true;
      await mx?.stop(options.drainTimeoutMs ?? DRAIN_TIMEOUT_MS);
      // Messages being parsed finish; anything left is picked up by the reconciler of another process.
      // A processing-only process (no DATA to drain first) gives its jobs the drain's time instead.
      if (processing) await stopProcessing(processing, options.processingStopMs ?? (mx ? PROCESSING_STOP_MS : DRAIN_TIMEOUT_MS), logger);
      workerRedis?.disconnect();
      await ops?.close();
      await backends.close();
      logger.info('inbound SMTP stopped');
    },
  };
}

/**
 * Stops the processing, waiting `ms` at most for the jobs in hand. A failure (Redis gone) or
 * the deadline is logged, not thrown: the messages stay unprocessed for the reconciler.
 */
async function stopProcessing(processing: RunningProcessing, ms: number, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  try {
    const outcome = await Promise.race([processing.stop().then(() => 'stopped' as const), deadline]);
    if (outcome === 'late') logger.warn({ waitedMs: ms }, 'inbound processing did not stop in time; the reconciler takes what it left');
  } catch (err) {
    logger.warn({ err }, 'inbound processing did not stop cleanly; the reconciler takes what it left');
  } finally {
    clearTimeout(timer);
  }
}
