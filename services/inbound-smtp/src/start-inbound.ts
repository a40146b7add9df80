import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import {
  checkReadiness,
  createLogger,
  createRedis,
  createServiceRegistry,
  deriveKey,
  listenOn,
  openQueue,
  PORT_VARIABLES,
  queues,
  startOpsServer,
  type Config,
  type Logger,
  Verp,
} from '@mailroom/core';
import { connectBackends, type Backends } from '@mailroom/db';
import type { Registry } from 'prom-client';
import type { SMTPServer } from 'smtp-server';
import { type RunningProcessing, startProcessing } from './processing';
import { ConnectionLimits } from './smtp/connection-limits';
import { createMxServer } from './smtp/create-server';
import { Drain } from './smtp/drain';
import { loadTls } from './smtp/load-tls';
import { MessageStore } from './smtp/message-store';
import { createInboundMetrics } from './smtp/metrics';
import { RecipientResolver } from './smtp/resolve-recipient';

// How long stop() lets messages in DATA finish, in ms: within Kubernetes' default 30 s grace period.
const DRAIN_TIMEOUT_MS = 25_000;

export interface InboundOptions {
  logger?: Logger;
  /** Interface to listen on (default all). */
  host?: string;
  /** How long stop() waits for messages in DATA (default 25 s). */
  drainTimeoutMs?: number;
}

export interface RunningInbound {
  /** The SMTP port (SMTP_PORT, or the one picked for port 0). */
  port: number;
  server: SMTPServer;
  backends: Backends;
  registry: Registry;
  /** The work after the 250: parsing, authentication, email.received, reconciler, retention. */
  processing: RunningProcessing;
  /** Drains (421 to new connections, messages in DATA finish) and closes everything. */
  stop(): Promise<void>;
}

/** Connects and starts the MX on SMTP_PORT, and the ops server on OPS_PORT when set. The MX's only entry point. */
export async function startInbound(config: Readonly<Config>, options: InboundOptions = {}): Promise<RunningInbound> {
  const logger = options.logger ?? createLogger({ service: 'inbound-smtp', level: config.logLevel, nodeEnv: config.nodeEnv });
  const tls = loadTls(config.smtpTlsCertFile, config.smtpTlsKeyFile);
  const backends = await connectBackends(config, { logger, prismaPoolSize: 1, poolSize: 10 });
  const { pool, redis, secretKey } = backends;
  const registry = createServiceRegistry('inbound-smtp');
  const metrics = createInboundMetrics(registry);
  const inboundQueue = openQueue(queues.inbound, { connection: redis, prefix: config.queuePrefix });
  const smtpLogger = logger.child({ component: 'smtp' });
  const store = new MessageStore({
    pool,
    logger: smtpLogger,
    // After the commit; a failed enqueue leaves the rows to the inbound reconciler (processed_at IS NULL).
    committed: (ids) => {
      inboundQueue.add({ receivedEmailIds: ids }).catch((err: unknown) => smtpLogger.warn({ err, ids }, 'enqueueing received mail failed'));
    },
  });
  const drain = new Drain();
  const verp = new Verp(deriveKey(secretKey, 'verp'), config.bounceDomain);
  const server = createMxServer({
    name: hostname(),
    maxMessageBytes: config.inboundMaxMessageBytes,
    tls,
    proxyProtocol: config.smtpProxyProtocol,
    maxConnections: config.smtpMaxConnections,
    idleTimeoutMs: config.smtpIdleTimeoutSeconds * 1000,
    limits: new ConnectionLimits(config.smtpMaxConnectionsPerIp),
    resolver: new RecipientResolver({ db: pool, verp, bounceDomain: config.bounceDomain }),
    store,
    drain,
    metrics,
    logger: smtpLogger,
  });
  try {
    await listenOn(server.server, config.smtpPort, options.host ?? '0.0.0.0', PORT_VARIABLES['inbound-smtp']);
  } catch (err) {
    await Promise.all([inboundQueue.close(), backends.close()]);
    throw err;
  }
  const port = (server.server.address() as AddressInfo).port;
  // BullMQ workers block on their connection, so they get their own ('worker': waits through reconnects).
  const workerRedis = createRedis(config.redisUrl, 'worker');
  workerRedis.on('error', (err) => logger.warn({ err: err.message }, 'redis connection error'));
  const processing = await startProcessing({ config, pool, redis: workerRedis, producerRedis: redis, logger, verp });
  const ops =
    config.opsPort === undefined
      ? undefined
      : await startOpsServer({
          port: config.opsPort,
          host: options.host,
          registry,
          metricsToken: config.metricsToken,
          logger,
          readiness: () => checkReadiness({ postgres: () => pool.query('SELECT 1'), redis: () => redis.ping(), isShuttingDown: () => drain.isDraining }),
        });
  logger.info({ port, starttls: Boolean(tls), proxyProtocol: config.smtpProxyProtocol, maxMessageBytes: config.inboundMaxMessageBytes }, 'inbound SMTP started');

  return {
    port,
    server,
    backends,
    registry,
    processing,
    async stop() {
      await drain.drain(server, options.drainTimeoutMs ?? DRAIN_TIMEOUT_MS);
      // Messages being parsed finish; anything left is picked up by the reconciler of another process.
      await processing.stop();
      workerRedis.disconnect();
      await ops?.close();
      await inboundQueue.close();
      await backends.close();
      logger.info('inbound SMTP stopped');
    },
  };
}
