import { setTimeout as sleep } from 'node:timers/promises';
import { CpuOfProcesses, cpuSeconds } from './cpu-time';
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
  /**
   * CPU µs per delivery from the receiver's first request until the end of the round: of the
   * posting process (raw undici or the dispatcher) and, ours only, of the bench database's
   * PostgreSQL backends. On a shared machine these say more than the rates.
   */
  cpuMicros?: { poster?: number; postgres?: number };
  error?: string;
}

// How often the CPU reading waits for the receiver's first request (ms).
const FIRST_REQUEST_POLL_MS = 5;

/**
 * CPU used by `pid` (and by the processes `others` lists) from the receiver's first request of
 * the round until `stop()`: start-up (tsx compiling the service) is not counted.
 */
function cpuFromFirstRequest(pid: number | undefined, receiver: WebhookReceiver, others?: CpuOfProcesses) {
  let before: number | undefined;
  let cancelled = false;
  const started = (async () => {
    while (!cancelled && receiver.current.firstRequestAt === undefined) await sleep(FIRST_REQUEST_POLL_MS);
    before = cpuSeconds(pid);
    await others?.start();
  })();
  return {
    async stop(deliveries: number): Promise<{ poster?: number; postgres?: number }> {
      cancelled = true;
      await started;
      const after = cpuSeconds(pid);
      const postgres = await others?.stop();
      const perDelivery = (seconds: number | undefined) => (seconds === undefined || deliveries === 0 ? undefined : (seconds * 1e6) / deliveries);
      return {
        ...(before === undefined || after === undefined ? {} : { poster: perDelivery(after - before) }),
        ...(postgres === undefined ? {} : { postgres: perDelivery(postgres) }),
      };
    },
  };
}

const s = (ms: number) => ms / 1000;

/** Raw undici → receiver, in its own process. */
export async function measureWebhooksBaseline(receiver: WebhookReceiver, count: number, inFlight: number, echo: boolean, timeoutMs: number): Promise<WebhooksSample> {
  receiver.reset();
  const child = startRawWebhooks(receiver.url, count, inFlight, echo);
  const cpu = cpuFromFirstRequest(child.process.pid, receiver);
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
  const cpuMicros = await cpu.stop(receiver.current.requests);
  await child.stop(5_000);
  const round = receiver.current;
  const seconds = s(doneAt - (round.firstRequestAt ?? doneAt));
  const sample: WebhooksSample = { count, received: round.requests, perSecond: seconds > 0 ? round.requests / seconds : 0, seconds, cpuMicros };
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
  const cpu = cpuFromFirstRequest(dispatcher.process.pid, o.receiver, new CpuOfProcesses(() => o.db.backendPids()));
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
  const done = succeeded - before;
  const cpuMicros = await cpu.stop(done);
  await dispatcher.stop();
  const first = round.firstRequestAt;
  const seconds = first === undefined ? 0 : s(doneAt - first);
  return {
    count,
    received: round.requests,
    perSecond: seconds > 0 ? done / seconds : 0,
    seconds,
    succeeded: done,
    cpuMicros,
    ...(first === undefined ? {} : { startupSeconds: s(first - dispatcher.startedAt) }),
    ...(error ? { error } : {}),
  };
}
