import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  answerNodeRefusals,
  httpServerOptions,
  EventNotices,
  checkReadiness,
  type Config,
  createLogger,
  createServiceRegistry,
  deriveKey,
  EventQueue,
  handleOpsRequest,
  listenOnHost,
  type Logger,
  MailroomError,
  missingHostHeader,
  requestPath,
  TrackingTokens,
} from '@mailroom/core';
import { type Backends, connectBackends, type EngagementHit, recordEngagement } from '@mailroom/db';
import { Counter, Gauge } from 'prom-client';
import { BotRules } from './bot-rules';
import { EndOfTurnAnswers } from './end-of-turn';
import { EngagementBuffer } from './engagement-buffer';
import { EngagementSpill } from './engagement-spill';
import { handleTrackingRequest, sendError, type TrackingOutcome } from './handle-tracking-request';
import { Lru } from './lru';
import { SpillDrainer } from './spill-drainer';
import { VerifiedTokens } from './verified-tokens';

export interface TrackingOptions {
  logger?: Logger;
  /** Interface to listen on (default all). */
  host?: string;
  /** Buffer settings (tests and the benchmark shorten or lengthen them). */
  flushIntervalMs?: number;
  writeAt?: number;
  maxBatch?: number;
  /** Spill settings (tests shorten them): how often the spill is drained, a claim's lease, the spill's bound. */
  spillIntervalMs?: number;
  spillLeaseMs?: number;
  maxSpilled?: number;
}

export interface RunningTracking {
  url: string;
  port: number;
  server: Server;
  backends: Backends;
  buffer: EngagementBuffer;
  /** The Redis spill of batches PostgreSQL did not take, and its drainer. */
  spill: EngagementSpill;
  drainer: SpillDrainer;
  /** Stops taking requests, lets those in flight finish, writes (or, PostgreSQL down, spills) every buffered event, then closes. */
  stop(): Promise<void>;
}

// How long stop() keeps retrying to write buffered events, in ms: within Kubernetes' grace period (60 s in k8s/base/tracking.yaml).
const STOP_FLUSH_DEADLINE_MS = 40_000;
// A request's headers, and the whole request, must arrive within this, in ms.
const REQUEST_DEADLINE_MS = 10_000;
// Clicking recipients whose first delivery is kept in memory.
const DELIVERIES_CACHED = 10_000;

/**
 * Connects and starts the tracking service on TRACKING_PORT: `/o/<token>`, `/c/<token>`,
 * `/healthz`, `/readyz` and `/metrics`, plain node:http. Requests are answered from the token
 * alone; the events they make wait in an EngagementBuffer and are written in batches through
 * `recordEngagement`, whose commit is followed by a notice on the `events` queue (webhooks). A
 * batch PostgreSQL does not take goes to the deployment's Redis spill (EngagementSpill), which
 * the SpillDrainer of every replica writes from once PostgreSQL takes writes again.
 * The tracking service's only entry point.
 */
export async function startTracking(config: Readonly<Config>, options: TrackingOptions = {}): Promise<RunningTracking> {
  const logger = options.logger ?? createLogger({ service: 'tracking', level: config.logLevel, nodeEnv: config.nodeEnv });
  const backends = await connectBackends(config, { logger, prismaPoolSize: 1, poolSize: 4 });
  const { pool, redis, secretKey } = backends;
  const registry = createServiceRegistry('tracking');
  // Answers are counted in plain numbers and handed to the counter when /metrics is read: a
  // labelled inc() hashes its labels on every call, and this runs on every request.
  const answered: Record<'open' | 'click', Record<TrackingOutcome, number>> = {
    open: { ok: 0, bot: 0, not_found: 0, head: 0 },
    click: { ok: 0, bot: 0, not_found: 0, head: 0 },
  };
  new Counter({
    name: 'mailroom_tracking_requests_total',
    help: 'Tracking requests answered, by route (open, click) and outcome (ok, bot, not_found, head).',
    labelNames: ['route', 'outcome'],
    registers: [registry],
    collect() {
      for (const route of ['open', 'click'] as const) {
        const counts = answered[route];
        for (const outcome of ['ok', 'bot', 'not_found', 'head'] as const) {
          if (counts[outcome] > 0) this.inc({ route, outcome }, counts[outcome]);
          counts[outcome] = 0;
        }
      }
    },
  });
  const written = new Counter({ name: 'mailroom_tracking_events_written_total', help: 'Engagement events written to the outbox.', registers: [registry] });
  const dropped = new Counter({ name: 'mailroom_tracking_events_dropped_total', help: 'Engagement events dropped: their email was deleted, or the buffer overflowed while PostgreSQL was down.', labelNames: ['reason'], registers: [registry] });
  const eventQueue = new EventQueue(redis, config.queuePrefix);
  const bots = new BotRules({ minClickSeconds: config.trackingMinClickSeconds });
  // Recipients' first deliveries, which click judging needs and which never move once recorded.
  const deliveries = new Lru<string, Date>(DELIVERIES_CACHED);

  const notices = new EventNotices({ notify: () => eventQueue.notify(), logger: logger.child({ component: 'notices' }) });
  const write = async (hits: EngagementHit[], retry: boolean) => {
    const result = await recordEngagement(pool, hits, { judgeClick: (click, context) => bots.byTiming(click, context) !== null, deliveries, retry });
    written.inc(result.appended);
    if (result.dropped > 0) dropped.inc({ reason: 'email_deleted' }, result.dropped);
    // Committed: the wake-up is sent without holding the next batch back.
    if (result.appended > 0) notices.committed();
  };
  // What PostgreSQL does not take goes to Redis, shared by the replicas, and is written from there
  // (by whichever replica gets to it) once PostgreSQL takes writes again.
  const spill = new EngagementSpill({ redis, prefix: config.queuePrefix, leaseMs: options.spillLeaseMs, maxSpilled: options.maxSpilled });
  const buffer = new EngagementBuffer({
    write,
    logger: logger.child({ component: 'buffer' }),
    flushIntervalMs: options.flushIntervalMs,
    writeAt: options.writeAt,
    maxBatch: options.maxBatch,
    onDropped: (count) => dropped.inc({ reason: 'buffer_full' }, count),
    spill: (hits) => spill.push(hits),
  });
  // A spilled chunk may have been written already (its removal from Redis lost): always a retry.
  const drainer = new SpillDrainer({
    spill,
    write: (hits) => write(hits, true),
    probe: () => pool.query('SELECT 1'),
    logger: logger.child({ component: 'spill' }),
    intervalMs: options.spillIntervalMs,
    maxBatch: options.maxBatch,
  });
  new Gauge({ name: 'mailroom_tracking_events_buffered', help: 'Engagement events waiting to be written.', registers: [registry], collect() {
    this.set(buffer.size);
  } });
  new Gauge({ name: 'mailroom_tracking_events_spilled', help: 'Engagement events in the Redis spill (every replica\'s), as last read.', registers: [registry], collect() {
    this.set(drainer.spilled);
  } });

  const tokens = new VerifiedTokens(new TrackingTokens(deriveKey(secretKey, 'tracking')));
  // A request handler that throws would otherwise take the process, and every buffered hit's
  // answer with it, down: this request gets a 500 and the others go on.
  const failed = (err: unknown, res: ServerResponse) => {
    logger.error({ err }, 'tracking request failed');
    if (res.headersSent) res.destroy();
    else sendError(res, new MailroomError('internal_server_error', 'The tracking link could not be answered.'));
  };
  const answers = new EndOfTurnAnswers(failed);
  const deps = {
    tokens,
    bots,
    record: (hit: EngagementHit) => buffer.add(hit),
    answer: answers.answer.bind(answers),
    trustProxy: config.trackingTrustProxy,
    count: (route: 'open' | 'click', outcome: TrackingOutcome) => {
      answered[route][outcome] += 1;
    },
  };
  let stopping = false;
  const ops = {
    registry,
    metricsToken: config.metricsToken,
    logger,
    readiness: () =>
      checkReadiness({ postgres: () => pool.query('SELECT 1'), redis: () => redis.ping(), migrations: () => backends.migrations.check(), isShuttingDown: () => stopping }),
  };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    // While stopping, each answer closes its connection: a client keeping one busy (an ingress's
    // keep-alive pool) would otherwise hold server.close() open, and the final write, forever.
    if (stopping) res.shouldKeepAlive = false;
    const noHost = missingHostHeader(req);
    if (noHost !== null) {
      res.shouldKeepAlive = false;
      sendError(res, noHost);
      return;
    }
    try {
      if (handleTrackingRequest(deps, req, res)) return;
    } catch (err) {
      failed(err, res);
      return;
    }
    const path = requestPath(req.url);
    if (path === '/healthz' || path === '/readyz' || path === '/metrics') return void handleOpsRequest(ops, req, res);
    sendError(res, new MailroomError('not_found', 'Only /o/<token>, /c/<token>, /healthz, /readyz and /metrics are served here.'));
  };
  const server = createServer(httpServerOptions(REQUEST_DEADLINE_MS, REQUEST_DEADLINE_MS), handle);
  // What Node's parser refuses (headers over its limit, a malformed request line), CONNECT and unknown expectations: the contract's JSON too.
  answerNodeRefusals(server, { logger, allow: 'GET, HEAD', handler: handle });
  try {
    await listenOnHost(server, config.trackingPort, options.host, 'TRACKING_PORT');
  } catch (err) {
    await Promise.all([eventQueue.close(), backends.close()]);
    throw err;
  }
  buffer.start();
  drainer.start();
  notices.start();
  const { port } = server.address() as AddressInfo;
  logger.info({ port, base: config.trackingBaseUrl }, 'tracking started');

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    server,
    backends,
    buffer,
    spill,
    drainer,
    async stop() {
      stopping = true;
      // Requests in flight finish (their events are buffered); idle keep-alive connections close now.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await closed;
      // With PostgreSQL down the buffer's events go to the spill at the first failed write, so
      // stopping waits the deadline out only when Redis does not take them either.
      await Promise.all([buffer.stop(STOP_FLUSH_DEADLINE_MS), drainer.stop()]);
      await notices.stop();
      await eventQueue.close();
      await backends.close();
      logger.info('tracking stopped');
    },
  };
}
