/**
 * `pnpm bench`: measures Mailroom beside a baseline measured in the same run, alternating
 * baseline and ours, and prints the ratios (ours / baseline) of the medians.
 *
 *   accept   POST /emails answered 2xx per second: bare express 5 vs the real gateway
 *   deliver  messages per second into a local SMTP sink: raw pooled nodemailer vs gateway-queued emails sent by the real sender
 *   receive  messages accepted (250) per second over SMTP, 10 reused connections: a bare smtp-server that discards vs the real MX storing each message
 *   track    open pixel and click redirect answers per second: a bare node:http server answering the same bytes vs the real tracking service
 *   webhooks events delivered per second to a local HTTP receiver: raw undici posting the same bodies vs the real dispatcher from the outbox to a 2xx;
 *            then the fan-out of each event to 10 endpoints
 *   stats    GET /stats (day and hour) over a project of BENCH_STATS_EVENTS events vs a plain SELECT count(*) over the same rows (ratio = count ms / stats ms)
 *   scale    1, 2 and 4 sender processes (then webhook dispatchers) against a far end in its own process that takes 50 ms a reply;
 *            throughput per process count, its ratio to one process (target 3.2 for 4), and duplicates at the far end (must be 0).
 *            `scale-sender` or `scale-webhooks` runs one half. BENCH_SCALE_PROCESSES=1,2,4  BENCH_SCALE_EMAILS=1600  BENCH_SCALE_EVENTS=400
 *
 * Scenarios: `pnpm bench [scenario…]`, or all of them. Settings (environment): BENCH_SCENARIOS=accept,deliver,receive,track,webhooks  BENCH_WEBHOOK_EVENTS=20000  BENCH_ROUNDS=2  BENCH_SMTP_CONNECTIONS=10  BENCH_CONNECTIONS=50
 * BENCH_DURATION=10  BENCH_WARMUP=2  BENCH_EMAILS=2000  BENCH_IN_FLIGHT=50  BENCH_DELIVER_TIMEOUT=60
 * BENCH_CPU_PROF=1 (write .cpuprofile files of the Mailroom children (gateway, sender, MX, tracking…) and the bare smtp sink to bench/results/profiles)
 * BENCH_COUNT_QUERIES=1 (count the SQL statements of the gateway and sender: bench/results/queries-*.json)
 * BENCH_VERBOSE=1 (echo the children's output). Exits 0 when a target is missed: it is a measurement.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { type AcceptSettings, measureAccept } from './lib/accept';
import { createApiToken } from './lib/api';
import { BenchDatabase, recreateDatabase } from './lib/database';
import { type DeliverSample, measureDeliverBaseline, measureDeliverOurs } from './lib/deliver';
import { DnsServer } from '../test/support/dns-server';
import { measureReceive, type ReceiveResult, type ReceiveSettings } from './lib/receive';
import { CpuOfProcesses, cpuSeconds } from './lib/cpu-time';
import type { LoadResult } from './lib/load';
import { REPOSITORY_ROOT } from './lib/paths';
import { killAllNow, stopAll } from './lib/processes';
import { deleteRedisKeys } from './lib/redis-keys';
import { describeMachine, RESULTS_DIR, writeResults } from './lib/results';
import {
  type BenchEnvironment,
  type RunningServer,
  startBareExpress,
  startBareSmtpSink,
  startBareTracking,
  startGateway,
  startInboundProcessing,
  startInboundSmtp,
  startTracking,
} from './lib/services';
import { benchTokens, measureTrack, TRACKED_LINK, type TrackSample, type TrackSettings, waitForTrackingBuffer } from './lib/track';
import { SmtpSink } from './lib/smtp-sink';
import { runStatsScenario } from './lib/stats-scenario';
import { formatTable, median, rate, type TableRow, verdictOf } from './lib/table';
import { WebhookReceiver } from './lib/webhook-receiver';
import { measureWebhooksBaseline, measureWebhooksOurs, type WebhooksSample } from './lib/webhooks';
import { runScaleSenders, runScaleWebhooks, type ScaleResult, type ScaleSettings } from './lib/scale-scenario';

const TARGET = 0.5;
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/mailroom_bench';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

function setting(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not ${JSON.stringify(raw)}`);
  return value;
}

const settings = {
  // `pnpm bench receive` (arguments) or BENCH_SCENARIOS=receive: the scenarios to run.
  scenarios: (process.argv.length > 2 ? process.argv.slice(2).join(',') : (process.env.BENCH_SCENARIOS ?? 'accept,deliver,receive,track,webhooks,stats')).split(',').map((s) => s.trim()),
  rounds: setting('BENCH_ROUNDS', 2),
  accept: {
    connections: setting('BENCH_CONNECTIONS', 50),
    durationSeconds: setting('BENCH_DURATION', 10),
    warmupSeconds: setting('BENCH_WARMUP', 2),
  } satisfies AcceptSettings,
  deliver: {
    emails: setting('BENCH_EMAILS', 2000),
    inFlight: setting('BENCH_IN_FLIGHT', 50),
    timeoutSeconds: setting('BENCH_DELIVER_TIMEOUT', 60),
    pollMs: 100,
  },
  receive: {
    connections: setting('BENCH_SMTP_CONNECTIONS', 10),
    durationSeconds: setting('BENCH_DURATION', 10),
    warmupSeconds: setting('BENCH_WARMUP', 2),
  } satisfies ReceiveSettings,
  track: {
    connections: setting('BENCH_CONNECTIONS', 50),
    durationSeconds: setting('BENCH_DURATION', 10),
    warmupSeconds: setting('BENCH_WARMUP', 2),
  } satisfies TrackSettings,
  webhooks: {
    // A raw undici round of 3,000 lasted 0.3–0.7 s on a quiet machine: too short to measure; 20,000 take a few seconds.
    events: setting('BENCH_WEBHOOK_EVENTS', 20_000),
    // The dispatcher's default WEBHOOK_CONCURRENCY_PER_ENDPOINT: the baseline gets as many.
    inFlight: 10,
    fanOutEndpoints: 10,
    timeoutSeconds: setting('BENCH_DELIVER_TIMEOUT', 60),
    pollMs: 100,
  },
  stats: { events: setting('BENCH_STATS_EVENTS', 1_000_000), days: 30, samples: setting('BENCH_STATS_SAMPLES', 7), tail: setting('BENCH_STATS_TAIL', 10_000) },
  scale: {
    processes: (process.env.BENCH_SCALE_PROCESSES ?? '1,2,4').split(',').map(Number),
    emails: setting('BENCH_SCALE_EMAILS', 1600),
    events: setting('BENCH_SCALE_EVENTS', 400),
    // Each event to every endpoint: WEBHOOK_CONCURRENCY_PER_ENDPOINT is a per-process bound, so 4 endpoints × 1 = 4 posts in flight per process.
    endpoints: 4,
    // 2 per sender: a sender's message (MIME build, SMTP, the outcome's commit) costs more CPU than a webhook post, and at 4 in flight four senders with PostgreSQL fill these two cores (the run would measure the cores, not scale-out).
    senderConcurrency: setting('BENCH_SCALE_SENDER_CONCURRENCY', 2),
    webhookConcurrencyPerEndpoint: 1,
    // A remote MX's (or endpoint's) time per message: the run is bound by it, not by the cores.
    delayMs: setting('BENCH_SCALE_DELAY_MS', 50),
    rounds: setting('BENCH_ROUNDS', 2),
    pollMs: 100,
    timeoutMs: setting('BENCH_DELIVER_TIMEOUT', 60) * 1000,
  } satisfies ScaleSettings,
  cpuProfile: process.env.BENCH_CPU_PROF === '1',
  countQueries: process.env.BENCH_COUNT_QUERIES === '1',
  verbose: process.env.BENCH_VERBOSE === '1',
};

const runId = randomBytes(4).toString('hex');
const cpuProfileFlags = ['--cpu-prof', `--cpu-prof-dir=${path.join(RESULTS_DIR, 'profiles')}`];
const prefixes = {
  accept: `mailroom-bench-${runId}-accept`,
  deliver: `mailroom-bench-${runId}-deliver`,
  receive: `mailroom-bench-${runId}-receive`,
  track: `mailroom-bench-${runId}-track`,
  webhooks: `mailroom-bench-${runId}-webhooks`,
  stats: `mailroom-bench-${runId}-stats`,
  scale: `mailroom-bench-${runId}-scale`,
};
const env: BenchEnvironment = {
  databaseUrl: DATABASE_URL,
  redisUrl: REDIS_URL,
  secretKey: randomBytes(20).toString('hex'),
  nodeFlags: [
    ...(settings.cpuProfile ? cpuProfileFlags : []),
    ...(process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(' ') : []),
    ...(settings.countQueries ? ['--import', path.join(__dirname, 'lib', 'count-queries.ts')] : []),
  ],
  echo: settings.verbose,
};

let interruptedAt: number | undefined;
// After Ctrl-C the measurements still in progress fail as their servers stop: not worth printing.
const log = (line: string) => {
  if (interruptedAt === undefined) console.log(line);
};
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function describeLoad(r: LoadResult): string {
  const problems = r.non2xx + r.errors > 0 ? `  non-2xx ${r.non2xx}, errors ${r.errors} (timeouts ${r.timeouts})` : '';
  return `${fmt(r.okPerSecond)} req/s  p50 ${r.latencyP50Ms} ms  p99 ${r.latencyP99Ms} ms${problems}`;
}

function describeDeliver(d: DeliverSample): string {
  const base = `${fmt(d.perSecond)} msg/s  (${d.sinkMessages} at the sink over ${d.sinkConnections} connections in ${fmt(d.seconds, 2)} s`;
  const ours =
    d.secondsFromSpawn === undefined
      ? ''
      : `; ${d.deliveredInDatabase} delivered in PostgreSQL; ${fmt(d.perSecondFromSpawn ?? 0)} msg/s from spawn, startup ${fmt(d.startupSeconds ?? 0, 2)} s; queued in ${fmt(d.enqueueSeconds ?? 0, 1)} s`;
  return `${base}${ours})`;
}

interface ScenarioResult {
  baseline: { samples: unknown[]; median: number };
  ours: { samples: unknown[]; median: number };
  ratio: number | undefined;
  target: number;
  verdict: string;
  notes: string[];
  /** receive only: how fast the backlog is parsed after the 250s. */
  parsed?: { perSecond: number; processed: number; seconds: number };
  /** webhooks only: each event to 10 endpoints. */
  fanOut?: { samples: WebhooksSample[]; median: number; ratio: number | undefined };
  /** scale only: the rate per process count and the duplicates seen. */
  scale?: ScaleResult;
}

const results: Record<string, ScenarioResult> = {};
let cleaningUp: Promise<void> | undefined;

async function cleanup(): Promise<void> {
  cleaningUp ??= (async () => {
    await stopAll(10_000);
    for (const prefix of Object.values(prefixes)) {
      const deleted = await deleteRedisKeys(REDIS_URL, prefix).catch((err: unknown) => {
        log(`could not delete Redis keys ${prefix}:*: ${String(err)}`);
        return 0;
      });
      if (deleted > 0 && settings.verbose) log(`deleted ${deleted} Redis keys under ${prefix}:`);
    }
  })();
  return cleaningUp;
}

async function runAccept(db: BenchDatabase): Promise<void> {
  log(`\n── accept: POST /emails, ${settings.accept.connections} connections, ${settings.accept.warmupSeconds} s warm-up + ${settings.accept.durationSeconds} s per measurement`);
  const bare = await startBareExpress(settings.verbose);
  const gateway = await startGateway(env, prefixes.accept);
  log(`bare express up in ${fmt(bare.startupMs)} ms, gateway up in ${fmt(gateway.startupMs)} ms`);
  const token = await createApiToken(gateway.url);
  const baseline: LoadResult[] = [];
  const ours: LoadResult[] = [];
  const notes: string[] = [];
  const measure = async (label: string, server: RunningServer, bearer: string | undefined, into: LoadResult[]) => {
    const r = await measureAccept(server, bearer, settings.accept);
    into.push(r);
    log(`  ${label.padEnd(10)} ${describeLoad(r)}`);
    if (r.firstError) {
      const note = `${label}: first non-2xx answer: ${r.firstError.status} ${r.firstError.body}`;
      notes.push(note);
      log(`    ${note}`);
    }
  };
  for (let round = 1; round <= settings.rounds; round++) {
    log(` round ${round}/${settings.rounds}`);
    await measure('bare', bare, undefined, baseline);
    await measure('mailroom', gateway, token, ours);
  }
  const stored = await db.countEmails();
  const accepted = ours.reduce((sum, r) => sum + r.ok, 0);
  log(`  ${fmt(stored)} emails stored by the gateway (2xx answers in measured runs: ${fmt(accepted)}, plus warm-ups)`);
  await Promise.all([bare.child.stop(), gateway.child.stop()]);
  await deleteRedisKeys(REDIS_URL, prefixes.accept);
  await db.clearEmails();

  const b = median(baseline.map((r) => r.okPerSecond));
  const o = median(ours.map((r) => r.okPerSecond));
  const ratio = b > 0 ? o / b : undefined;
  results.accept = { baseline: { samples: baseline, median: b }, ours: { samples: ours, median: o }, ratio, target: TARGET, verdict: verdictOf(ratio, TARGET), notes };
}

async function runDeliver(db: BenchDatabase): Promise<void> {
  const { emails, inFlight, timeoutSeconds, pollMs } = settings.deliver;
  log(`\n── deliver: ${emails} messages into a local SMTP sink; raw nodemailer (pool of 5, ${inFlight} in flight) vs gateway-queued + sender`);
  log('  clock: from the sink\'s first connection of the round until all are done (ours: seen "delivered" in PostgreSQL, polled every 100 ms)');
  const sink = new SmtpSink();
  await sink.start();
  const gateway = await startGateway(env, prefixes.deliver);
  const token = await createApiToken(gateway.url);
  const baseline: DeliverSample[] = [];
  const ours: DeliverSample[] = [];
  const notes: string[] = [];
  let pending: string | undefined;
  try {
    for (let round = 1; round <= settings.rounds; round++) {
      log(` round ${round}/${settings.rounds}`);
      const b = await measureDeliverBaseline(sink, emails, inFlight, settings.verbose, timeoutSeconds * 1000);
      baseline.push(b);
      log(`  ${'raw'.padEnd(10)} ${describeDeliver(b)}`);
      if (b.error) log(`    baseline error: ${b.error}`);
      if (pending) continue;
      const o = await measureDeliverOurs({ env, queuePrefix: prefixes.deliver, gatewayUrl: gateway.url, token, db, sink, count: emails, pollMs, timeoutMs: timeoutSeconds * 1000 });
      if (o.error && o.sinkMessages === 0) {
        pending = o.error;
        log(`  ${'mailroom'.padEnd(10)} PENDING: ${o.error}`);
        notes.push(`mailroom: ${o.error}`);
        continue;
      }
      ours.push(o);
      log(`  ${'mailroom'.padEnd(10)} ${describeDeliver(o)}`);
      if (o.error) {
        log(`    error: ${o.error}`);
        notes.push(`mailroom round ${round}: ${o.error}`);
      }
      if (o.sinkMessages !== o.deliveredInDatabase) {
        const note = `mailroom round ${round}: the sink received ${o.sinkMessages} messages but PostgreSQL shows ${o.deliveredInDatabase} delivered`;
        notes.push(note);
        log(`    ${note}`);
      }
    }
  } finally {
    await gateway.child.stop();
    await sink.close();
  }
  const b = median(baseline.map((r) => r.perSecond));
  const o = ours.length > 0 ? median(ours.map((r) => r.perSecond)) : Number.NaN;
  const ratio = b > 0 && Number.isFinite(o) ? o / b : undefined;
  if (ours.length > 0) {
    notes.push(`mailroom from the sender's spawn instead (startup included): median ${fmt(median(ours.map((r) => r.perSecondFromSpawn ?? 0)))} msg/s`);
  }
  results.deliver = { baseline: { samples: baseline, median: b }, ours: { samples: ours, median: o }, ratio, target: TARGET, verdict: verdictOf(ratio, TARGET), notes };
}

/**
 * A receive measurement with the CPU spent per message answered (warm-up included), in µs, and
 * the share of one core the server process was busy over the same span.
 */
type ReceiveSample = ReceiveResult & { cpuMicrosPerMessage: { server?: number; postgres?: number; loadGenerator: number }; serverBusy?: number };

function describeReceive(r: ReceiveSample): string {
  const problems = r.refused > 0 ? `  refused ${r.refused} (first: ${r.firstError})` : '';
  const { server, postgres, loadGenerator } = r.cpuMicrosPerMessage;
  const busy = r.serverBusy === undefined ? '' : ` (busy ${fmt(r.serverBusy * 100)} % of a core)`;
  const cpu = [`server ${server === undefined ? '?' : fmt(server)}${busy}`, ...(postgres === undefined ? [] : [`PostgreSQL ${fmt(postgres)}`]), `load ${fmt(loadGenerator)}`];
  return `${fmt(r.perSecond)} msg/s  (${fmt(r.accepted)} answered 250; CPU µs/msg: ${cpu.join(', ')})${problems}`;
}

/**
 * One receive measurement, with the CPU time the server process, the PostgreSQL backends of
 * the bench database (none for the sink) and this process spent on it: on a shared machine the
 * rates move with the neighbours' load, the CPU per message much less.
 */
async function measureReceiveCpu(server: RunningServer & { port: number }, to: string, postgres: CpuOfProcesses | undefined): Promise<ReceiveSample> {
  const serverPid = server.child.process.pid;
  const serverBefore = cpuSeconds(serverPid);
  await postgres?.start();
  const loadBefore = process.cpuUsage();
  const startedAt = performance.now();
  const r = await measureReceive(server.port, to, settings.receive);
  const elapsedSeconds = (performance.now() - startedAt) / 1000;
  const load = process.cpuUsage(loadBefore);
  const serverAfter = cpuSeconds(serverPid);
  const postgresSeconds = await postgres?.stop();
  const perMessage = (seconds: number | undefined) => (seconds === undefined || r.answered === 0 ? undefined : (seconds * 1e6) / r.answered);
  return {
    ...r,
    cpuMicrosPerMessage: {
      server: perMessage(serverBefore === undefined || serverAfter === undefined ? undefined : serverAfter - serverBefore),
      postgres: perMessage(postgresSeconds),
      loadGenerator: perMessage((load.user + load.system) / 1e6) ?? Number.NaN,
    },
    // Below 1 while the server waits (for its commits, or for the client): what overlapping them could win.
    serverBusy: serverBefore === undefined || serverAfter === undefined ? undefined : (serverAfter - serverBefore) / elapsedSeconds,
  };
}

async function runReceive(db: BenchDatabase): Promise<void> {
  const { connections, warmupSeconds, durationSeconds } = settings.receive;
  const to = 'support@bench.test';
  log(`\n── receive: ~4 KB messages over SMTP, ${connections} reused connections (MAIL/RCPT/DATA pipelined), ${warmupSeconds} s warm-up + ${durationSeconds} s per measurement`);
  log('  baseline: bare smtp-server that reads and discards; mailroom: the real MX (INBOUND_ROLE=smtp), each message committed to PostgreSQL before its 250');
  await db.seedRoute(to);
  // Authentication after the 250 asks DNS; a local server that answers at once (NXDOMAIN)
  // stands in for the resolver, as these machines have no other.
  const dns = await new DnsServer().start();
  // Profiled too with BENCH_CPU_PROF=1, so the MX's profile can be read beside the sink's.
  const bare = await startBareSmtpSink(settings.verbose, settings.cpuProfile ? cpuProfileFlags : []);
  // The MX accepts and stores only (INBOUND_ROLE=smtp), as in the split deployment the README
  // describes; the parsing of what it stored is measured afterwards, by a processing-only process.
  const mx = await startInboundSmtp(env, prefixes.receive, { INBOUND_ROLE: 'smtp' });
  log(`bare smtp-server up in ${fmt(bare.startupMs)} ms, inbound-smtp up in ${fmt(mx.startupMs)} ms`);
  const baseline: ReceiveSample[] = [];
  const ours: ReceiveSample[] = [];
  const notes: string[] = [];
  let parsed: ParseResult | undefined;
  try {
    // The backends of the MX's pool: they store the messages.
    const postgres = new CpuOfProcesses(() => db.backendPids());
    for (let round = 1; round <= settings.rounds; round++) {
      log(` round ${round}/${settings.rounds}`);
      const b = await measureReceiveCpu(bare, to, undefined);
      baseline.push(b);
      log(`  ${'bare'.padEnd(10)} ${describeReceive(b)}`);
      const o = await measureReceiveCpu(mx, to, postgres);
      ours.push(o);
      log(`  ${'mailroom'.padEnd(10)} ${describeReceive(o)}`);
      if (o.firstError) notes.push(`mailroom round ${round}: first refusal: ${o.firstError}`);
    }
    const stored = await db.countReceived();
    const accepted = ours.reduce((sum, r) => sum + r.accepted, 0);
    log(`  ${fmt(stored)} messages stored by the MX (250 answers in measured windows: ${fmt(accepted)}, plus warm-ups)`);
    if (stored < accepted) notes.push(`only ${stored} rows stored for ${accepted} answers of 250`);
    const processor = startInboundProcessing(env, prefixes.receive, { DNS_SERVERS: dns.address });
    try {
      parsed = await measureParsing(db, stored);
    } finally {
      await processor.stop();
    }
    log(`  parsed after the 250 (INBOUND_ROLE=processing, INBOUND_CONCURRENCY=4): ${fmt(parsed.perSecond)} msg/s (${fmt(parsed.processed)} in ${fmt(parsed.seconds)} s)`);
  } finally {
    await dns.stop();
    await Promise.all([bare.child.stop(), mx.child.stop()]);
    await deleteRedisKeys(REDIS_URL, prefixes.receive);
    await db.clearReceived();
  }
  const b = median(baseline.map((r) => r.perSecond));
  const o = median(ours.map((r) => r.perSecond));
  const ratio = b > 0 ? o / b : undefined;
  results.receive = { baseline: { samples: baseline, median: b }, ours: { samples: ours, median: o }, ratio, target: TARGET, verdict: verdictOf(ratio, TARGET), notes, parsed };
}

function describeTrack(r: TrackSample): string {
  const { server, postgres, loadGenerator } = r.cpuMicrosPerAnswer;
  const cpu = [`server ${server === undefined ? '?' : fmt(server)}`, ...(postgres === undefined ? [] : [`PostgreSQL ${fmt(postgres)}`]), `load ${fmt(loadGenerator)}`];
  const drain = r.drainSeconds === undefined ? '' : `; buffer written ${fmt(r.drainSeconds, 2)} s after the load, counted in its time`;
  return `${describeLoad(r)}  (CPU µs/answer: ${cpu.join(', ')}${drain})`;
}

// How long the tracking service may take to write its buffer after SIGTERM: Kubernetes' grace period.
const TRACKING_STOP_TIMEOUT_MS = 60_000;

/**
 * Pixel and redirect answers per second, bare node:http (same bytes, no token, no event) then
 * the real tracking service, alternating; then the service is stopped (SIGTERM writes its
 * buffer) and every answer it gave must be an event in PostgreSQL.
 */
async function runTrack(db: BenchDatabase): Promise<void> {
  const { connections, warmupSeconds, durationSeconds } = settings.track;
  log(`\n── track: GET /o/<token> (200, 43-byte GIF) and /c/<token> (302), ${connections} connections, ${warmupSeconds} s warm-up + ${durationSeconds} s per measurement`);
  const seeded = benchTokens(env.secretKey);
  await db.seedTrackedEmail(seeded.emailId, seeded.recipientId);
  const bare = await startBareTracking(TRACKED_LINK, settings.verbose);
  const tracking = await startTracking(env, prefixes.track);
  log(`bare node:http up in ${fmt(bare.startupMs)} ms, tracking up in ${fmt(tracking.startupMs)} ms`);
  const routes = [
    { name: 'pixel', path: `/o/${seeded.open}`, expect: '2xx' as const },
    { name: 'redirect', path: `/c/${seeded.click}`, expect: '3xx' as const },
  ];
  const samples: Record<string, { baseline: TrackSample[]; ours: TrackSample[] }> = { pixel: { baseline: [], ours: [] }, redirect: { baseline: [], ours: [] } };
  const notes: string[] = [];
  // The backends of the service's pool: they write the events.
  const postgres = new CpuOfProcesses(() => db.backendPids());
  try {
    for (let round = 1; round <= settings.rounds; round++) {
      log(` round ${round}/${settings.rounds}`);
      for (const route of routes) {
        const b = await measureTrack(bare, route.path, route.expect, settings.track);
        samples[route.name]!.baseline.push(b);
        log(`  ${`bare ${route.name}`.padEnd(18)} ${describeTrack(b)}`);
        const o = await measureTrack(tracking, route.path, route.expect, settings.track, postgres, () => waitForTrackingBuffer(tracking.url));
        samples[route.name]!.ours.push(o);
        log(`  ${`mailroom ${route.name}`.padEnd(18)} ${describeTrack(o)}`);
      }
    }
  } finally {
    // The tracking service writes its buffer before exiting: give it Kubernetes' grace period (60 s), not the usual 15 s.
    await Promise.all([bare.child.stop(), tracking.child.stop(TRACKING_STOP_TIMEOUT_MS)]);
    await deleteRedisKeys(REDIS_URL, prefixes.track);
  }
  const answered = (name: string) => samples[name]!.ours.reduce((sum, r) => sum + r.ok + r.warmupOk, 0);
  const found = await db.countEngagement(seeded.emailId);
  log(`  in PostgreSQL after SIGTERM: ${fmt(found.opens)} email.opened for ${fmt(answered('pixel'))} pixels answered, ${fmt(found.clicks)} email.clicked for ${fmt(answered('redirect'))} redirects answered`);
  // Requests cut off at the end of a measurement were served (and recorded) but not counted by the client: at least as many, never fewer.
  if (found.opens < answered('pixel') || found.clicks < answered('redirect')) notes.push(`events missing in PostgreSQL: ${JSON.stringify(found)} for ${answered('pixel')} pixels and ${answered('redirect')} redirects answered`);
  await db.clearEmails();
  for (const route of routes) {
    const b = median(samples[route.name]!.baseline.map((r) => r.okPerSecond));
    const o = median(samples[route.name]!.ours.map((r) => r.okPerSecond));
    const ratio = b > 0 ? o / b : undefined;
    const missing = notes.length > 0;
    results[`track-${route.name}`] = {
      baseline: { samples: samples[route.name]!.baseline, median: b },
      ours: { samples: samples[route.name]!.ours, median: o },
      ratio: missing ? 0 : ratio,
      target: TARGET,
      verdict: missing ? 'MISSED' : verdictOf(ratio, TARGET),
      notes: route.name === 'pixel' ? notes : [],
    };
  }
}

function describeWebhooks(w: WebhooksSample): string {
  const ours = w.succeeded === undefined ? '' : `; ${w.succeeded} succeeded in PostgreSQL; startup ${fmt(w.startupSeconds ?? 0, 2)} s`;
  const { poster, postgres } = w.cpuMicros ?? {};
  const cpu = [...(poster === undefined ? [] : [`poster ${fmt(poster)}`]), ...(postgres === undefined ? [] : [`PostgreSQL ${fmt(postgres)}`])];
  return `${fmt(w.perSecond)} deliveries/s  (${w.received} at the receiver in ${fmt(w.seconds, 2)} s${ours}${cpu.length > 0 ? `; CPU µs/delivery: ${cpu.join(', ')}` : ''})`;
}

async function runWebhooks(db: BenchDatabase): Promise<void> {
  const { events, inFlight, fanOutEndpoints, timeoutSeconds, pollMs } = settings.webhooks;
  log(`\n── webhooks: ${events} events to a local node:http receiver; raw undici (${inFlight} in flight) vs the real dispatcher from the outbox to a 2xx`);
  log('  clock: from the receiver\'s first request of the round until all are done (ours: seen "succeeded" in PostgreSQL, polled every 100 ms)');
  const receiver = new WebhookReceiver();
  await receiver.start();
  const baseline: WebhooksSample[] = [];
  const ours: WebhooksSample[] = [];
  const fanOut: WebhooksSample[] = [];
  const notes: string[] = [];
  const timeoutMs = timeoutSeconds * 1000;
  try {
    await db.createWebhooks(1, receiver.url, env.secretKey);
    for (let round = 1; round <= settings.rounds; round++) {
      log(` round ${round}/${settings.rounds}`);
      const b = await measureWebhooksBaseline(receiver, events, inFlight, settings.verbose, timeoutMs);
      baseline.push(b);
      log(`  ${'raw'.padEnd(10)} ${describeWebhooks(b)}`);
      if (b.error) notes.push(`raw round ${round}: ${b.error}`);
      const o = await measureWebhooksOurs({ env, queuePrefix: prefixes.webhooks, db, receiver, events, endpoints: 1, pollMs, timeoutMs });
      ours.push(o);
      log(`  ${'mailroom'.padEnd(10)} ${describeWebhooks(o)}`);
      if (o.error) notes.push(`mailroom round ${round}: ${o.error}`);
    }
    // Fan-out: each event to 10 endpoints (same receiver), events / 10 of them per round.
    await db.clearWebhooks();
    await db.createWebhooks(fanOutEndpoints, receiver.url, env.secretKey);
    for (let round = 1; round <= settings.rounds; round++) {
      const f = await measureWebhooksOurs({ env, queuePrefix: prefixes.webhooks, db, receiver, events: Math.ceil(events / fanOutEndpoints), endpoints: fanOutEndpoints, pollMs, timeoutMs });
      fanOut.push(f);
      log(`  fan-out ×${fanOutEndpoints} round ${round}: ${describeWebhooks(f)}`);
      if (f.error) notes.push(`fan-out round ${round}: ${f.error}`);
    }
  } finally {
    await receiver.close();
    await deleteRedisKeys(REDIS_URL, prefixes.webhooks);
    await db.clearWebhooks();
  }
  const b = median(baseline.map((r) => r.perSecond));
  const o = median(ours.map((r) => r.perSecond));
  const f = median(fanOut.map((r) => r.perSecond));
  const ratio = b > 0 ? o / b : undefined;
  results.webhooks = {
    baseline: { samples: baseline, median: b },
    ours: { samples: ours, median: o },
    ratio,
    target: TARGET,
    verdict: verdictOf(ratio, TARGET),
    notes,
    fanOut: { samples: fanOut, median: f, ratio: b > 0 ? f / b : undefined },
  };
}

const SCALE_TARGET = 3.2;

/** scale-sender / scale-webhooks: baseline = 1 process, ours = the most processes; duplicates or errors make it MISSED. */
async function runScale(db: BenchDatabase, which: 'sender' | 'webhooks'): Promise<void> {
  const context = { env, queuePrefix: prefixes.scale, db, settings: settings.scale, log };
  const scale = which === 'sender' ? await runScaleSenders(context) : await runScaleWebhooks(context);
  await deleteRedisKeys(REDIS_URL, prefixes.scale);
  const first = scale.perProcesses[0];
  const last = scale.perProcesses[scale.perProcesses.length - 1];
  const notes = [...scale.notes];
  if (scale.duplicates > 0) notes.push(`${scale.duplicates} duplicate deliveries seen at the far end`);
  const failed = scale.duplicates > 0 || scale.samples.some((x) => x.error);
  results[`scale-${which}`] = {
    baseline: { samples: scale.samples.filter((x) => x.processes === first?.processes), median: first?.median ?? Number.NaN },
    ours: { samples: scale.samples.filter((x) => x.processes === last?.processes), median: last?.median ?? Number.NaN },
    // The ratio as measured (rounds with errors left out of the medians); a duplicate or an error still makes it MISSED.
    ratio: last?.ratio,
    target: SCALE_TARGET,
    verdict: failed ? 'MISSED' : verdictOf(last?.ratio, SCALE_TARGET),
    notes,
    scale,
  };
  const unit = which === 'sender' ? 'msg/s' : 'deliveries/s';
  log(`  medians: ${scale.perProcesses.map((p) => `${p.processes} → ${rate(p.median, unit)} (×${p.ratio?.toFixed(2) ?? '—'})`).join(', ')}; duplicates ${scale.duplicates}`);
}

interface ParseResult {
  perSecond: number;
  processed: number;
  seconds: number;
}

/**
 * Parse throughput after the 250: with no SMTP traffic left, how fast the MX's processing
 * (mailparser, mailauth, the stored fields and email.received) works through the backlog the
 * rounds left, over at most BENCH_DURATION seconds.
 */
async function measureParsing(db: BenchDatabase, stored: number): Promise<ParseResult> {
  // From the first message processed: the process's start-up is not parsing.
  let from = await db.countProcessed();
  for (const startBy = performance.now() + 30_000; from === 0 && performance.now() < startBy; ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    from = await db.countProcessed();
  }
  const start = performance.now();
  const deadline = start + settings.receive.durationSeconds * 1000;
  let done = from;
  while (done < stored && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    done = await db.countProcessed();
  }
  const seconds = (performance.now() - start) / 1000;
  return { perSecond: (done - from) / seconds, processed: done - from, seconds };
}

async function main(): Promise<void> {
  const started = new Date();
  const machineBefore = describeMachine();
  log(`Mailroom bench ${runId}: node ${process.version}, ${String(machineBefore.cpus)} CPUs, load ${JSON.stringify(machineBefore.loadAverage)}`);
  const applied = await recreateDatabase(DATABASE_URL);
  log(`database ${new URL(DATABASE_URL).pathname.slice(1)} recreated (${applied.length} migrations); Redis prefix mailroom-bench-${runId}-*`);
  const db = await BenchDatabase.open(DATABASE_URL);
  let statsRun: Awaited<ReturnType<typeof runStatsScenario>> | undefined;
  try {
    if (settings.scenarios.includes('accept')) await runAccept(db);
    if (settings.scenarios.includes('deliver')) await runDeliver(db);
    if (settings.scenarios.includes('receive')) await runReceive(db);
    if (settings.scenarios.includes('track')) await runTrack(db);
    if (settings.scenarios.includes('webhooks')) await runWebhooks(db);
    if (settings.scenarios.includes('stats')) statsRun = await runStatsScenario({ env, queuePrefix: prefixes.stats, redisUrl: REDIS_URL, rounds: settings.rounds, settings: settings.stats, log });
    if (settings.scenarios.includes('scale') || settings.scenarios.includes('scale-sender')) await runScale(db, 'sender');
    if (settings.scenarios.includes('scale') || settings.scenarios.includes('scale-webhooks')) await runScale(db, 'webhooks');
  } finally {
    await db.close().catch(() => {});
    await cleanup();
  }

  const rows: TableRow[] = [];
  if (results.accept) {
    const a = results.accept;
    rows.push({ scenario: 'accept', baseline: `${rate(a.baseline.median, 'req/s')} (bare)`, ours: rate(a.ours.median, 'req/s'), ratio: a.ratio, target: a.target, verdict: verdictOf(a.ratio, a.target) });
  }
  if (results.deliver) {
    const d = results.deliver;
    rows.push({ scenario: 'deliver', baseline: `${rate(d.baseline.median, 'msg/s')} (raw)`, ours: Number.isFinite(d.ours.median) ? rate(d.ours.median, 'msg/s') : 'pending', ratio: d.ratio, target: d.target, verdict: verdictOf(d.ratio, d.target) });
  }
  if (results.receive) {
    const r = results.receive;
    rows.push({ scenario: 'receive', baseline: `${rate(r.baseline.median, 'msg/s')} (bare)`, ours: rate(r.ours.median, 'msg/s'), ratio: r.ratio, target: r.target, verdict: verdictOf(r.ratio, r.target) });
  }
  for (const name of ['track-pixel', 'track-redirect']) {
    const t = results[name];
    if (t) rows.push({ scenario: name, baseline: `${rate(t.baseline.median, 'req/s')} (bare)`, ours: rate(t.ours.median, 'req/s'), ratio: t.ratio, target: t.target, verdict: verdictOf(t.ratio, t.target) });
  }
  if (results.webhooks) {
    const w = results.webhooks;
    rows.push({ scenario: 'webhooks', baseline: `${rate(w.baseline.median, 'req/s')} (raw)`, ours: rate(w.ours.median, 'deliveries/s'), ratio: w.ratio, target: w.target, verdict: verdictOf(w.ratio, w.target) });
    if (w.fanOut) log(`\nwebhooks fan-out (each event to ${settings.webhooks.fanOutEndpoints} endpoints): median ${rate(w.fanOut.median, 'deliveries/s')}, ${w.fanOut.ratio?.toFixed(2) ?? '—'} of raw undici`);
  }
  if (statsRun) {
    results.stats = statsRun.result;
    rows.push(statsRun.row);
  }
  for (const which of ['sender', 'webhooks'] as const) {
    const x = results[`scale-${which}`];
    const unit = which === 'sender' ? 'msg/s' : 'deliveries/s';
    const first = x?.scale?.perProcesses[0];
    const last = x?.scale?.perProcesses.at(-1);
    if (x && first && last) {
      rows.push({ scenario: `scale-${which}`, baseline: `${rate(first.median, unit)} (${first.processes} proc)`, ours: `${rate(last.median, unit)} (${last.processes} proc)`, ratio: x.ratio, target: x.target, verdict: x.verdict as TableRow['verdict'] });
    }
  }
  log(`\nMedians of ${settings.rounds} alternating rounds; ratio = mailroom / baseline.\n`);
  log(formatTable(rows));
  for (const row of rows) {
    if (row.verdict === 'MISSED') log(`\nMISSED: ${row.scenario} ratio ${row.ratio?.toFixed(2)} is below the target ${row.target.toFixed(2)}.`);
    if (row.verdict === 'PENDING') log(`\nPENDING: ${row.scenario} was not measured; see notes.`);
  }
  for (const [name, r] of Object.entries(results)) for (const note of r.notes) log(`note (${name}): ${note}`);

  const file = writeResults({
    runId,
    startedAt: started.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: { ...machineBefore, loadAverageAfter: describeMachine().loadAverage },
    settings,
    table: rows,
    scenarios: results,
  });
  log(`\nresults: ${path.relative(REPOSITORY_ROOT, file)}${settings.cpuProfile ? `; CPU profiles in ${path.relative(REPOSITORY_ROOT, path.join(RESULTS_DIR, 'profiles'))}` : ''}`);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interruptedAt !== undefined) {
      // Ctrl-C reaches both pnpm's tsx and this process; only a later second signal means "now".
      if (performance.now() - interruptedAt < 1_000) return;
      killAllNow();
      process.exit(130);
    }
    interruptedAt = performance.now();
    console.log(`\n${signal}: stopping the children…`);
    void cleanup().finally(() => process.exit(130));
  });
}
process.on('exit', killAllNow);

main().then(
  () => process.exit(0),
  async (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    await cleanup().catch(() => {});
    process.exit(1);
  },
);
