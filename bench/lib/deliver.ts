import { setTimeout as sleep } from 'node:timers/promises';
import { enqueueEmails } from './api';
import type { BenchDatabase } from './database';
import type { Child } from './processes';
import type { RawSenderReport } from './raw-sender';
import { type BenchEnvironment, startRawSender, startSender } from './services';
import type { SmtpSink } from './smtp-sink';

export interface DeliverSample {
  count: number;
  /** Messages the sink received in this round. */
  sinkMessages: number;
  sinkConnections: number;
  /** The figure compared: messages per second from the sink's first connection until all were done. */
  perSecond: number;
  /** Seconds from the sink's first connection until all were done (ours: seen delivered in PostgreSQL). */
  seconds: number;
  /** Seconds from the sink's first connection to its last message received. */
  sinkSeconds: number;
  /** Ours only: seconds from spawning the sender until all were delivered, and the rate on that clock. */
  secondsFromSpawn?: number;
  perSecondFromSpawn?: number;
  /** Ours only: seconds from spawn to the sink's first connection (sender startup). */
  startupSeconds?: number;
  /** Ours only: emails `delivered` in PostgreSQL at the end of the round (this round's). */
  deliveredInDatabase?: number;
  /** Ours only: seconds spent queueing through POST /emails/batch (not timed). */
  enqueueSeconds?: number;
  /** Set when the round did not complete; the figures above are then partial. */
  error?: string;
}

const s = (ms: number) => ms / 1000;

/** Raw nodemailer → sink, in its own process. */
export async function measureDeliverBaseline(sink: SmtpSink, count: number, inFlight: number, echo: boolean, timeoutMs: number): Promise<DeliverSample> {
  sink.reset();
  const child = startRawSender(sink.port, count, inFlight, echo);
  const report = await new Promise<RawSenderReport | string>((resolve) => {
    const timer = setTimeout(() => resolve(`timed out after ${timeoutMs / 1000} s`), timeoutMs);
    child.process.once('message', (message) => {
      clearTimeout(timer);
      resolve(message as RawSenderReport);
    });
    void child.exited.then(({ code, signal }) => {
      clearTimeout(timer);
      resolve(`raw sender exited (${signal ?? `code ${code}`}) without a report:\n${child.output()}`);
    });
  });
  const doneAt = performance.now();
  await child.stop(5_000);
  const round = sink.current;
  const first = round.firstConnectionAt ?? doneAt;
  const seconds = s(doneAt - first);
  const sample: DeliverSample = {
    count,
    sinkMessages: round.messages,
    sinkConnections: round.connections,
    perSecond: seconds > 0 ? round.messages / seconds : 0,
    seconds,
    sinkSeconds: s((round.lastMessageAt ?? first) - first),
  };
  if (typeof report === 'string') sample.error = report;
  else if (report.failed > 0 || report.sent !== count) sample.error = `raw nodemailer sent ${report.sent}, failed ${report.failed}: ${report.firstError ?? ''}`;
  return sample;
}

export interface OursDeliverOptions {
  env: BenchEnvironment;
  queuePrefix: string;
  gatewayUrl: string;
  token: string;
  db: BenchDatabase;
  sink: SmtpSink;
  count: number;
  pollMs: number;
  timeoutMs: number;
}

/**
 * Queues `count` emails through the gateway (not timed), then starts the real sender and polls
 * PostgreSQL until all of them are delivered. The sender is stopped with SIGTERM afterwards.
 */
export async function measureDeliverOurs(o: OursDeliverOptions): Promise<DeliverSample> {
  const before = await o.db.countDelivered();
  const enqueueStarted = performance.now();
  await enqueueEmails(o.gatewayUrl, o.token, o.count);
  const enqueueSeconds = s(performance.now() - enqueueStarted);
  o.sink.reset();

  const sender: Child = startSender(o.env, o.queuePrefix, o.sink.port);
  const target = before + o.count;
  const deadline = sender.startedAt + o.timeoutMs;
  let delivered = before;
  let error: string | undefined;
  let doneAt = performance.now();
  for (;;) {
    if (sender.hasExited()) {
      const { code, signal } = await sender.exited;
      error = `the sender exited (${signal ?? `code ${code}`}) after ${delivered - before} of ${o.count} deliveries:\n${sender.output() || '(no output)'}`;
      break;
    }
    delivered = await o.db.countDelivered();
    doneAt = performance.now();
    if (delivered >= target) break;
    if (doneAt > deadline) {
      const statuses = JSON.stringify(await o.db.statusCounts());
      const samples = JSON.stringify(await o.db.sampleUndelivered());
      error = `timed out after ${o.timeoutMs / 1000} s with ${delivered - before} of ${o.count} delivered; emails by status ${statuses}; latest undelivered recipients ${samples}`;
      break;
    }
    await sleep(o.pollMs);
  }
  // Everything delivered was answered 250 by the sink before it was recorded, so the sink's
  // count is final by now; a brief wait covers a straggler only in the error case.
  if (!error) await Promise.race([o.sink.waitForMessages(o.count), sleep(2_000)]);
  const round = o.sink.current;
  await sender.stop();
  const exit = await sender.exited;
  if (!error && exit.code !== 0 && exit.code !== null) error = `the sender exited with code ${exit.code} on SIGTERM:\n${sender.output()}`;
  if (!error && sender.output()) process.stderr.write(`sender output:\n${sender.output()}\n`);

  const first = round.firstConnectionAt;
  const seconds = first === undefined ? 0 : s(doneAt - first);
  const secondsFromSpawn = s(doneAt - sender.startedAt);
  const count = delivered - before;
  return {
    count: o.count,
    sinkMessages: round.messages,
    sinkConnections: round.connections,
    perSecond: seconds > 0 ? count / seconds : 0,
    seconds,
    sinkSeconds: first === undefined ? 0 : s((round.lastMessageAt ?? first) - first),
    secondsFromSpawn,
    perSecondFromSpawn: secondsFromSpawn > 0 ? count / secondsFromSpawn : 0,
    ...(first === undefined ? {} : { startupSeconds: s(first - sender.startedAt) }),
    deliveredInDatabase: count,
    enqueueSeconds,
    ...(error ? { error } : {}),
  };
}
