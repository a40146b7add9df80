import { setTimeout as sleep } from 'node:timers/promises';
import { createRedis, openQueue, queues } from '@mailroom/core';
import { cpuSeconds } from './cpu-time';
import type { Child } from './processes';
import { freePort } from './processes';
import type { SlowEndpoint } from './services';

/** One measurement: `processes` workers side by side working through one backlog. */
export interface ScaleSample {
  processes: number;
  /** Deliveries expected (emails, or events × endpoints). */
  count: number;
  /** Done in PostgreSQL (delivered / succeeded) in this round. */
  done: number;
  /** Seen at the far end in this round, and how many of them repeated one seen before. */
  received: number;
  duplicates: number;
  /** The figure compared: deliveries per second from the queue's resume until all were done. */
  perSecond: number;
  seconds: number;
  /** CPU seconds each worker spent between the resume and the end: how evenly the work was shared, and what it cost. */
  workerCpuSeconds: number[];
  error?: string;
}

export interface ScaleRound {
  processes: number;
  count: number;
  /** The queue the workers take from: paused while the backlog is built and the workers start. */
  queue: 'send' | 'webhookDeliveries';
  queuePrefix: string;
  redisUrl: string;
  endpoint: SlowEndpoint;
  /** Builds the backlog (its jobs wait in the paused queue). */
  prepare: () => Promise<void>;
  /** Starts worker `i` with its ops server on `opsPort`. */
  start: (i: number, opsPort: number) => Child;
  /** Whether the backlog is complete (the dispatcher's own fan-out builds it); default true. */
  backlogReady?: () => Promise<boolean>;
  /** Deliveries done so far in PostgreSQL, over all rounds. */
  countDone: () => Promise<number>;
  pollMs: number;
  timeoutMs: number;
}

const s = (ms: number) => ms / 1000;

/** Polls `condition` until it holds; throws after `timeoutMs` with `what`. */
async function until(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} within ${s(timeoutMs)} s`);
    await sleep(100);
  }
}

async function isReady(child: Child, opsPort: number): Promise<boolean> {
  if (child.hasExited()) throw new Error(`${child.name} exited before it was ready:\n${child.output() || '(no output)'}`);
  const res = await fetch(`http://127.0.0.1:${opsPort}/readyz`).catch(() => undefined);
  await res?.body?.cancel();
  return res?.status === 200;
}

/**
 * One round of the scale scenario: pauses the queue, builds the backlog, starts `processes`
 * workers and waits until every one is ready, then resumes the queue and polls PostgreSQL until
 * every delivery is done. So every worker starts with the whole backlog before it, and the clock
 * holds only the work. The workers are stopped with SIGTERM afterwards (they must exit 0).
 */
export async function measureScaleRound(r: ScaleRound): Promise<ScaleSample> {
  const redis = createRedis(r.redisUrl, 'worker');
  const connection = { connection: redis, prefix: r.queuePrefix };
  const queue = r.queue === 'send' ? openQueue(queues.send, connection) : openQueue(queues.webhookDeliveries, connection);
  const workers: Child[] = [];
  const sample: ScaleSample = { processes: r.processes, count: r.count, done: 0, received: 0, duplicates: 0, perSecond: 0, seconds: 0, workerCpuSeconds: [] };
  const before = await r.countDone();
  try {
    await queue.queue.pause();
    await r.prepare();
    await r.endpoint.reset();
    const opsPorts: number[] = [];
    for (let i = 0; i < r.processes; i++) {
      opsPorts.push(await freePort());
      workers.push(r.start(i, opsPorts[i] as number));
    }
    await until(async () => (await Promise.all(workers.map((w, i) => isReady(w, opsPorts[i] as number)))).every(Boolean), r.timeoutMs, 'the workers were not all ready');
    if (r.backlogReady) await until(r.backlogReady, r.timeoutMs, 'the backlog was not built');
    const cpuBefore = workers.map((w) => cpuSeconds(w.process.pid) ?? 0);
    const resumedAt = Date.now();
    await queue.queue.resume();
    let done = 0;
    let doneAt = resumedAt;
    for (;;) {
      const exited = workers.find((w) => w.hasExited());
      if (exited) {
        const { code, signal } = await exited.exited;
        sample.error = `${exited.name} exited (${signal ?? `code ${code}`}) after ${done} of ${r.count}:\n${exited.output() || '(no output)'}`;
        break;
      }
      done = (await r.countDone()) - before;
      doneAt = Date.now();
      if (done >= r.count) break;
      if (doneAt - resumedAt > r.timeoutMs) {
        sample.error = `timed out after ${s(r.timeoutMs)} s with ${done} of ${r.count} done`;
        break;
      }
      await sleep(r.pollMs);
    }
    sample.workerCpuSeconds = workers.map((w, i) => (cpuSeconds(w.process.pid) ?? Number.NaN) - (cpuBefore[i] ?? 0));
    sample.done = done;
    sample.seconds = s(doneAt - resumedAt);
    sample.perSecond = sample.seconds > 0 ? done / sample.seconds : 0;
  } catch (err) {
    sample.error = err instanceof Error ? err.message : String(err);
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await queue.queue.resume().catch(() => {});
    await queue.close();
    redis.disconnect();
  }
  for (const w of workers) {
    const { code, signal } = await w.exited;
    if (code !== 0 && !sample.error) sample.error = `${w.name} exited ${signal ?? `with code ${code}`} on SIGTERM:\n${w.output()}`;
  }
  const seen = await r.endpoint.report();
  sample.received = seen.received;
  sample.duplicates = seen.duplicates;
  return sample;
}
