import { createApiToken, enqueueEmails } from './api';
import type { BenchDatabase } from './database';
import { measureScaleRound, type ScaleSample } from './scale';
import { type BenchEnvironment, SlowEndpoint, startDispatcher, startGateway, startSender } from './services';
import { median } from './table';
import { WEBHOOK_EVENT_DATA } from './workload';

export interface ScaleSettings {
  /** Worker processes per measurement, e.g. [1, 2, 4]; the first is the baseline. */
  processes: number[];
  emails: number;
  /** Events per round; each goes to every one of `endpoints` endpoints. */
  events: number;
  endpoints: number;
  /** SENDER_CONCURRENCY, and WEBHOOK_CONCURRENCY_PER_ENDPOINT: fixed per process. */
  senderConcurrency: number;
  webhookConcurrencyPerEndpoint: number;
  /** How long the far end holds each reply (ms). */
  delayMs: number;
  rounds: number;
  pollMs: number;
  timeoutMs: number;
}

export interface ScaleContext {
  env: BenchEnvironment;
  queuePrefix: string;
  db: BenchDatabase;
  settings: ScaleSettings;
  log: (line: string) => void;
}

/** The medians per process count, their ratio to the first, and the duplicates seen in all rounds. */
export interface ScaleResult {
  samples: ScaleSample[];
  perProcesses: { processes: number; median: number; ratio: number | undefined }[];
  duplicates: number;
  notes: string[];
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function describeScale(x: ScaleSample): string {
  const problems = x.error ? `  ERROR: ${x.error.split('\n')[0]}` : '';
  return `${fmt(x.perSecond)} /s  (${x.done} of ${x.count} done in ${fmt(x.seconds, 2)} s; ${x.received} at the far end, ${x.duplicates} duplicates; CPU s per process ${x.workerCpuSeconds.map((c) => fmt(c, 1)).join('/')})${problems}`;
}

/** Runs every process count `rounds` times (1, 2, 4, 1, 2, 4…) and summarises. */
async function runRounds(c: ScaleContext, label: string, measure: (processes: number) => Promise<ScaleSample>): Promise<ScaleResult> {
  const samples: ScaleSample[] = [];
  const notes: string[] = [];
  for (let round = 1; round <= c.settings.rounds; round++) {
    c.log(` round ${round}/${c.settings.rounds}`);
    for (const processes of c.settings.processes) {
      const sample = await measure(processes);
      samples.push(sample);
      c.log(`  ${`${processes} ${label}`.padEnd(16)} ${describeScale(sample)}`);
      if (sample.error) notes.push(`${processes} ${label}, round ${round}: ${sample.error}`);
    }
  }
  const medians = c.settings.processes.map((processes) => ({ processes, median: median(samples.filter((x) => x.processes === processes && !x.error).map((x) => x.perSecond)) }));
  const base = medians[0]?.median ?? Number.NaN;
  return {
    samples,
    perProcesses: medians.map((m) => ({ ...m, ratio: base > 0 && Number.isFinite(m.median) ? m.median / base : undefined })),
    duplicates: samples.reduce((sum, x) => sum + x.duplicates, 0),
    notes,
  };
}

/** Senders against an SMTP sink in its own process that holds each DATA reply `delayMs`. */
export async function runScaleSenders(c: ScaleContext): Promise<ScaleResult> {
  const { settings } = c;
  c.log(`\n── scale-sender: ${settings.emails} emails, ${settings.processes.join('/')} sender processes (SENDER_CONCURRENCY=${settings.senderConcurrency}) → SMTP sink in its own process, ${settings.delayMs} ms per message`);
  c.log('  clock: from the send queue\'s resume (all senders ready, the backlog queued) until all are "delivered" in PostgreSQL');
  const sink = await SlowEndpoint.start('smtp', settings.delayMs, c.env.echo);
  const gateway = await startGateway(c.env, c.queuePrefix);
  try {
    const token = await createApiToken(gateway.url);
    return await runRounds(c, 'senders', (processes) =>
      measureScaleRound({
        processes,
        count: settings.emails,
        queue: 'send',
        queuePrefix: c.queuePrefix,
        redisUrl: c.env.redisUrl,
        endpoint: sink,
        prepare: () => enqueueEmails(gateway.url, token, settings.emails),
        start: (i, opsPort) => startSender(c.env, c.queuePrefix, sink.port, { OPS_PORT: String(opsPort), SENDER_CONCURRENCY: String(settings.senderConcurrency) }, `sender-${i + 1}`),
        countDone: () => c.db.countDelivered(),
        pollMs: settings.pollMs,
        timeoutMs: settings.timeoutMs,
      }),
    );
  } finally {
    await Promise.all([gateway.child.stop(), sink.child.stop()]);
    await c.db.clearEmails();
  }
}

/** Webhook dispatchers against a receiver in its own process that holds each answer `delayMs`. */
export async function runScaleWebhooks(c: ScaleContext): Promise<ScaleResult> {
  const { settings } = c;
  const count = settings.events * settings.endpoints;
  c.log(
    `\n── scale-webhooks: ${settings.events} events × ${settings.endpoints} endpoints, ${settings.processes.join('/')} dispatcher processes (WEBHOOK_CONCURRENCY_PER_ENDPOINT=${settings.webhookConcurrencyPerEndpoint}) → receiver in its own process, ${settings.delayMs} ms per request`,
  );
  c.log('  clock: from the deliveries queue\'s resume (all dispatchers ready, every delivery fanned out) until all are "succeeded" in PostgreSQL');
  const receiver = await SlowEndpoint.start('http', settings.delayMs, c.env.echo);
  try {
    await c.db.createWebhooks(settings.endpoints, receiver.url, c.env.secretKey);
    return await runRounds(c, 'dispatchers', async (processes) => {
      const rows = await c.db.countDeliveries();
      return measureScaleRound({
        processes,
        count,
        queue: 'webhookDeliveries',
        queuePrefix: c.queuePrefix,
        redisUrl: c.env.redisUrl,
        endpoint: receiver,
        // The first dispatcher's fan-out turns them into deliveries, whose jobs wait in the paused queue.
        prepare: () => c.db.appendEvents(settings.events, WEBHOOK_EVENT_DATA),
        backlogReady: async () => (await c.db.countDeliveries()) >= rows + count,
        start: (i, opsPort) =>
          startDispatcher(c.env, c.queuePrefix, { OPS_PORT: String(opsPort), WEBHOOK_CONCURRENCY_PER_ENDPOINT: String(settings.webhookConcurrencyPerEndpoint) }, `dispatcher-${i + 1}`),
        countDone: () => c.db.countSucceededDeliveries(),
        pollMs: settings.pollMs,
        timeoutMs: settings.timeoutMs,
      });
    });
  } finally {
    await receiver.child.stop();
    await c.db.clearWebhooks();
  }
}
