import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  answerNodeRefusals,
  httpServerOptions,
  clientBlock,
  createLogger,
  createResolver,
  deriveKey,
  domainDnsSettings,
  EventQueue,
  listenOnHost,
  PORT_VARIABLES,
  SendQueue,
  WebhookQueue,
  type Config,
  type Logger,
} from '@mailroom/core';
import { connectBackends } from '@mailroom/db';
import { createWebhookDeliverer } from '@mailroom/webhooks';
import { ApiTokenVerifier } from './auth/api-tokens';
import { SessionTokens } from './auth/session-tokens';
import { AcceptBatcher } from './features/emails/accept-batcher';
import { buildApp } from './app';
import type { GatewayContext } from './context';
import { createAccount } from './features/auth/accounts';
import { VerifiedDomainsCache } from './features/domains/verified-domains-cache';
import { createUrlHostCheck } from './features/webhooks/check-url-host';
import { countStalledLogin, createRateLimits } from './http/rate-limit';
import { checkBodyBudget } from './http/router';
import { DEFAULT_TIMEOUTS, type HttpTimeouts } from './http/timeouts';
import { createMetrics } from './metrics';
import { allRoutes } from './routes';

export interface RunningGateway {
  server: Server;
  /** The URL it listens on, e.g. http://127.0.0.1:3000. */
  url: string;
  ctx: GatewayContext;
  stop(): Promise<void>;
}

// Let in-flight requests finish before connections are cut on shutdown.
const DRAIN_MS = 10_000;

export interface GatewayOptions {
  logger?: Logger;
  host?: string;
  /** How long clients may take to send a request; tests shorten them. */
  timeouts?: Partial<HttpTimeouts>;
}

/** Connects, bootstraps the admin if asked, and listens. The gateway's only entry point (main.ts and tests). */
export async function startGateway(config: Readonly<Config>, options: GatewayOptions = {}): Promise<RunningGateway> {
  const logger = options.logger ?? createLogger({ service: 'gateway', level: config.logLevel, nodeEnv: config.nodeEnv });
  checkBodyBudget(allRoutes(config.publicApiUrl).routes, config.apiMaxBufferedBytes);
  // Both must answer at start; later outages are survived (requests answer 503 meanwhile).
  const backends = await connectBackends(config, { logger });
  const { db, pool, redis, secretKey } = backends;
  let shuttingDown = false;
  const sendQueue = new SendQueue(redis, config.queuePrefix);
  const resolver = createResolver(config.dnsServers);
  const webhookDeliverer = createWebhookDeliverer({ pool, masterSecret: secretKey, config, logger, resolver });
  const ctx: GatewayContext = {
    config,
    db,
    pool,
    redis,
    migrations: backends.migrations,
    logger,
    sessions: new SessionTokens(db, deriveKey(secretKey, 'session'), config.sessionTtlSeconds),
    apiTokens: new ApiTokenVerifier({ db, redis, prefix: config.queuePrefix, logger: logger.child({ component: 'api-tokens' }) }),
    rateLimits: createRateLimits(redis, config.queuePrefix, {
      perSecond: config.rateLimitPerSecond,
      loginPerMinute: config.loginRateLimitPerMinute,
    }),
    metrics: createMetrics(),
    verifiedDomains: new VerifiedDomainsCache(pool),
    webhookEndpoints: {
      pool,
      encryptionKey: deriveKey(secretKey, 'encryption'),
      checkUrlHost: createUrlHostCheck({ resolver, allowPrivateNetworks: config.allowPrivateNetworks }),
    },
    webhookDeliveries: {
      pool,
      deliverer: webhookDeliverer,
      queue: new WebhookQueue(redis, config.queuePrefix),
      logger: logger.child({ component: 'webhooks' }),
    },
    sendQueue,
    acceptBatcher: new AcceptBatcher(pool, sendQueue, logger.child({ component: 'accept' })),
    domains: {
      encryptionKey: deriveKey(secretKey, 'encryption'),
      resolver: createResolver(config.dnsServers),
      settings: domainDnsSettings(config),
      eventQueue: new EventQueue(redis, config.queuePrefix),
      logger: logger.child({ component: 'domains' }),
    },
    isShuttingDown: () => shuttingDown,
  };
  await bootstrapAdmin(ctx);
  await ctx.apiTokens.start();
  await webhookDeliverer.start();

  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const { app, longestBodyMs } = buildApp(ctx, timeouts);
  // The request deadline is a backstop: each route's own body deadline answers first (as JSON, in express).
  const server = createServer(httpServerOptions(timeouts.headersMs, timeouts.headersMs + longestBodyMs + 1_000), app);
  // Which path stalled is unknown before the headers are complete: any stalled request counts
  // against its address's sign-in budget, as a stalled sign-in body does. Not behind a trusted
  // proxy: the socket's address is then the proxy's, shared by every client.
  const onHeadersTimeout = config.gatewayTrustProxy ? undefined : (ip: string | undefined) => countStalledLogin(ctx.rateLimits, clientBlock(ip ?? 'unknown'));
  answerNodeRefusals(server, { logger: logger.child({ component: 'http' }), allow: 'GET, HEAD, POST, PATCH, DELETE', handler: app, onHeadersTimeout });
  // `Expect: 100-continue` is answered by the route's body reader, after authentication and
  // routing (read-json-body.ts): a refused request (401, 404, 413 by its Content-Length) is
  // answered without inviting its body first. Node would send `100 Continue` at once.
  server.on('checkContinue', app);
  await listenOnHost(server, config.apiPort, options.host, PORT_VARIABLES.gateway);
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  logger.info({ url }, 'gateway listening');

  return {
    server,
    url,
    ctx,
    async stop() {
      shuttingDown = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const force = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
      await closed;
      clearTimeout(force);
      await ctx.apiTokens.stop();
      await ctx.sendQueue.close().catch(() => undefined);
      await ctx.domains.eventQueue.close().catch(() => undefined);
      await webhookDeliverer.stop();
      await ctx.webhookDeliveries.queue.close().catch(() => undefined);
      await backends.close();
    },
  };
}

/** ADMIN_EMAIL / ADMIN_PASSWORD: the first owner and project, created only while no user exists. */
async function bootstrapAdmin(ctx: GatewayContext): Promise<void> {
  const { adminEmail, adminPassword } = ctx.config;
  if (!adminEmail || !adminPassword) return;
  const created = await createAccount(
    ctx.db,
    { email: adminEmail.toLowerCase(), password: adminPassword, projectName: 'Default project' },
    { allowSignup: true, firstUserOnly: true },
  );
  if (created) ctx.logger.info({ userId: created.user.id, projectId: created.project.id }, 'created the admin user and a first project');
}
