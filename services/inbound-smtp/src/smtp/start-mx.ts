import type { AddressInfo } from 'node:net';
import { ByteBudget, type Config, listenOnHost, type Logger, openQueue, PORT_VARIABLES, queues, type Verp } from '@mailroom/core';
import type { Backends } from '@mailroom/db';
import type { Registry } from 'prom-client';
import type { SMTPServer } from 'smtp-server';
import { ConnectionLimits } from './connection-limits';
import { createMxServer } from './create-server';
import { Drain } from './drain';
import { ExpectedMessages } from './expected-messages';
import { InboundJobs } from './inbound-jobs';
import { loadTls } from './load-tls';
import { MAX_HOLD_MS, MessageStore } from './message-store';
import { createInboundMetrics } from './metrics';
import { RecipientResolver } from './resolve-recipient';

export interface MxOptions {
  config: Readonly<Config>;
  backends: Backends;
  verp: Verp;
  registry: Registry;
  logger: Logger;
  /** The address to listen on; every address, IPv6 and IPv4, when not given. */
  host?: string;
}

export interface RunningMx {
  port: number;
  server: SMTPServer;
  /** True from the moment a drain began: /readyz answers 503. */
  isDraining(): boolean;
  /** 421 to new connections, messages in DATA finish, then the listener closes; waits at most `timeoutMs`. */
  stop(timeoutMs: number): Promise<void>;
}

/**
 * The SMTP half of the inbound service: accepts recipients (DESIGN §7), stores each message
 * in PostgreSQL before its 250 and queues it for processing. Listens on SMTP_PORT.
 */
export async function startMx(options: MxOptions): Promise<RunningMx> {
  const { config, backends, logger } = options;
  const tls = loadTls(config.smtpTlsCertFile, config.smtpTlsKeyFile);
  const inboundQueue = openQueue(queues.inbound, { connection: backends.redis, prefix: config.queuePrefix });
  const jobs = new InboundJobs(inboundQueue, logger);
  // After each commit; a lost job leaves the rows to the inbound reconciler (processed_at IS NULL).
  const expected = new ExpectedMessages(() => store.wake(), MAX_HOLD_MS);
  const store = new MessageStore({ pool: backends.pool, logger, committed: (ids) => jobs.add(ids), moreExpected: () => expected.count > 0 });
  const drain = new Drain();
  const memory = new ByteBudget(config.inboundMaxBufferedBytes);
  const server = createMxServer({
    name: config.smtpHostname,
    maxMessageBytes: config.inboundMaxMessageBytes,
    tls,
    proxyProtocol: config.smtpProxyProtocol,
    maxConnections: config.smtpMaxConnections,
    idleTimeoutMs: config.smtpIdleTimeoutSeconds * 1000,
    limits: new ConnectionLimits(config.smtpMaxConnectionsPerIp),
    resolver: new RecipientResolver({ db: backends.pool, verp: options.verp, bounceDomain: config.bounceDomain, returnPathLabel: config.returnPathLabel, requireVerifiedDomains: config.requireVerifiedDomains }),
    store,
    memory,
    expected,
    drain,
    metrics: createInboundMetrics(options.registry, memory),
    logger,
  });
  try {
    await listenOnHost(server.server, config.smtpPort, options.host, PORT_VARIABLES['inbound-smtp']);
  } catch (err) {
    await inboundQueue.close();
    throw err;
  }
  const port = (server.server.address() as AddressInfo).port;
  logger.info({ port, starttls: Boolean(tls), proxyProtocol: config.smtpProxyProtocol, maxMessageBytes: config.inboundMaxMessageBytes }, 'inbound SMTP listening');
  return {
    port,
    server,
    isDraining: () => drain.isDraining,
    async stop(timeoutMs) {
      await drain.drain(server, timeoutMs);
      await jobs.close();
      await inboundQueue.close();
    },
  };
}
