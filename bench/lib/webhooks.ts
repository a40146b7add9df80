import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchDatabase } from './database';
import type { RawWebhooksReport } from './raw-webhooks';
import { type BenchEnvironment, startDispatcher, startRawWebhooks } from './services';
import type { WebhookReceiver } from './webhook-receiver';
import { WEBHOOK_EVENT_DATA } from './workload';

export interface WebhooksSample {
  /** Deliveries expected in this round (events × endpoints). */
  count: number;
  /** Requests the receiver got in this round. */
  received: number;
  /** The figure compared: deliveries per second from the receiver's first request until all were done. */
  perSecond: number;
  seconds: number;
  /** Ours only: deliveries `succeeded` in PostgreSQL in this round, and seconds from spawn to the first request. */
  succeeded?: number;
  startupSeconds?: number;
  error?: string;
}

const s = (ms: number) => ms / 1000;

/** Raw undici → receiver, in its own process. */
export async function measureWebhooksBaseline(receiver: WebhookReceiver, count: number, inFlight: number, echo: boolean, timeoutMs: number): Promise<WebhooksSample> {
  receiver.reset();
  const child = startRawWebhooks(receiver.url, count, inFlight, echo);
  const report = await new Promise<RawWebhooksReport | string>((resolve) => {
    const timer = setTimeout(() => resolve(`timed out after ${timeoutMs / 1000} s`), timeoutMs);
    child.process.once('message', (message) => {
      clearTimeout(timer);
      resolve(message as RawWebhooksReport);
    });
    void child.exited.then(({ code, signal }) => {
      clearTimeout(timer);
      resolve(`raw undici exited (${signal ?? `code ${code}`}) without a report:\n${child.output()}`);
    });
  });
  const doneAt = performance.now();
  await child.stop(5_000);
  const round = receiver.current;
  const seconds = s(doneAt - (round.firstRequestAt ?? doneAt));
  const sample: WebhooksSample = { count, received: round.requests, perSecond: seconds > 0 ? round.requests / seconds : 0, seconds };
  if (typeof report === 'string') sample.error = report;
  else if (report.failed > 0 || report.sent !== count) sample.error = `raw undici sent ${report.sent}, failed ${report.failed}: ${report.firstError ?? ''}`;
  return sample;
}

export interface OursWebhooksOptions {
  env: BenchEnvironment;
  queuePrefix: string;
  db: BenchDatabase;
  receiver: WebhookReceiver;
  /** Events appended to the outbox (not timed); each goes to every endpoint. */
  events: number;
  endpoints: number;
  pollMs: number;
  timeoutMs: number;
}

/**
 * Appends the events to the outbox (not timed), then starts the real dispatcher and polls
 * PostgreSQL until every (event, endpoint) delivery is `succeeded`: fan-out, claim, signing,
 * POST, the 2xx, and the attempt recorded. The dispatcher is stopped with SIGTERM afterwards.
 */
export async function measureWebhooksOurs(o: OursWebhooksOptions): Promise<WebhooksSample> {
  const before = await o.db.countSucceededDeliveries();
  await o.db.appendEvents(o.events, WEBHOOK_EVENT_DATA);
  o.receiver.reset();
  const count = o.events * o.endpoints;
  const dispatcher = startDispatcher(o.env, o.queuePrefix);
  const deadline = dispatcher.startedAt + o.timeoutMs;
  let succeeded = before;
  let error: string | undefined;
  let doneAt = performance.now();
  for (;;) {
    if (dispatcher.hasExited()) {
      const { code, signal } = await dispatcher.exited;
      error = `the dispatcher exited (${signal ?? `code ${code}`}) after ${succeeded - before} of ${count}:\n${dispatcher.output() || '(no output)'}`;
      break;
    }
    succeeded = await o.db.countSucceededDeliveries();
    doneAt = performance.now();
    if (succeeded >= before + count) break;
    if (doneAt > deadline) {
      error = `timed out after ${o.timeoutMs / 1000} s with ${succeeded - before} of ${count} succeeded`;
      break;
    }
    await sleep(o.pollMs);
  }
  const round = o.receiver.current;
  await dispatcher.stop();
  const first = round.firstRequestAt;
  const seconds = first === undefined ? 0 : s(doneAt - first);
  const done = succeeded - before;
  return {
    count,
    received: round.requests,
    perSecond: seconds > 0 ? done / seconds : 0,
    seconds,
    succeeded: done,
    ...(first === undefined ? {} : { startupSeconds: s(first - dispatcher.startedAt) }),
    ...(error ? { error } : {}),
  };
}
