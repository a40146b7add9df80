import type { Worker } from 'bullmq';
import type { Logger } from './logger';
import { disconnectWithDuplicates, type Redis } from './redis';

// How many jobs each worker made by openWorker is running now, so a stopping service can tell
// "the work is done, BullMQ is only recording it" from "a job is still in hand".
const running = new WeakMap<Worker, { count: number; idle: Set<() => void> }>();

/** Wraps a worker's handler so closeWorkers knows when none of its jobs is in hand. */
export function countRunning<T>(worker: Worker, run: () => Promise<T>): Promise<T> {
  const state = runningState(worker);
  state.count += 1;
  return run().finally(() => {
    state.count -= 1;
    if (state.count > 0) return;
    for (const resolve of state.idle) resolve();
    state.idle.clear();
  });
}

function runningState(worker: Worker) {
  let state = running.get(worker);
  if (!state) {
    state = { count: 0, idle: new Set() };
    running.set(worker, state);
  }
  return state;
}

const whenIdle = (worker: Worker): Promise<void> => {
  const state = runningState(worker);
  return state.count === 0 ? Promise.resolve() : new Promise((resolve) => state.idle.add(resolve));
};

const sleep = (ms: number) => new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), ms).unref());

export interface CloseWorkersOptions {
  logger: Logger;
  /** How long BullMQ has, once no job is in hand, to record the last ones and close its connections. */
  graceMs?: number;
}

/**
 * Closes a stopping service's BullMQ workers: none takes a new job, and the jobs in hand run to
 * their end (their work lands in PostgreSQL), however long that takes. Then BullMQ has
 * `graceMs` to record them in Redis and close. A Redis that is down or frozen would hold that
 * close for ever (the blocking fetch and QUIT wait through reconnects), so past the grace the
 * service stops waiting and drops the connection: a job BullMQ could not mark completed is taken
 * again by its stalled-job check, and the work it did is known to PostgreSQL (the sender's leases
 * and recorded outcomes, the dispatcher's delivery rows), so it is not done twice.
 */
export async function closeWorkers(workers: Worker[], connection: Redis, options: CloseWorkersOptions): Promise<void> {
  const graceMs = options.graceMs ?? 5_000;
  let closed = false;
  const closing = Promise.allSettled(workers.map((w) => w.close())).then(() => {
    closed = true;
  });
  for (;;) {
    await Promise.race([closing, Promise.all(workers.map(whenIdle))]);
    if (closed) return;
    await Promise.race([closing, sleep(graceMs)]);
    if (closed) return;
    // A job picked up just before the close began may have started meanwhile: wait for it too.
    if (workers.every((w) => runningState(w).count === 0)) break;
  }
  options.logger.warn(
    { waitedMs: graceMs },
    'redis did not let the workers close; stopping without it (jobs it could not mark done are taken again by its stalled-job check)',
  );
  disconnectWithDuplicates(connection);
}
