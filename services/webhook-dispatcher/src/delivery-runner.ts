import { type DeliveryKey, GroupCommit, type Logger, type WebhookQueue } from '@mailroom/core';
import { type AttemptRecord, claimDeliveries, type DeliveryTarget, type Pool, recordAttempts } from '@mailroom/db';
import { type AttemptDeps, attemptDelivery } from '@mailroom/webhooks';

// Attempt records per transaction.
const MAX_RECORDS_PER_COMMIT = 500;
// A delivery for an endpoint already at its concurrency bound is tried again this much later (ms).
const DEFER_MS = 1_000;

export interface DeliveryRunnerOptions {
  pool: Pool;
  deps: AttemptDeps;
  queue: Pick<WebhookQueue, 'enqueueDue'>;
  logger: Logger;
  /** WEBHOOK_CONCURRENCY_PER_ENDPOINT. */
  perEndpoint: number;
  /** Posts in flight in this process at once, all endpoints together. */
  maxInFlight: number;
  leaseSeconds: number;
}

/**
 * Runs the attempts of this process. A delivery job hands its deliveries here and completes
 * once they are claimed and started, so queue slots never wait on an endpoint: a job waits only
 * while the whole process is at `maxInFlight`. Deliveries for an endpoint already at its bound
 * are not claimed but deferred (a job a second later), so a hanging endpoint holds at most
 * `perEndpoint` posts and never the slots healthy endpoints need. Outcomes are written with a
 * group commit; retries are enqueued after their commit (the reconciler catches a lost one).
 */
export class DeliveryRunner {
  private readonly perEndpoint = new Map<string, number>();
  private inFlight = 0;
  private readonly running = new Set<Promise<void>>();
  private readonly slotFreed: (() => void)[] = [];
  private readonly records: GroupCommit<AttemptRecord>;

  constructor(private readonly options: DeliveryRunnerOptions) {
    this.records = new GroupCommit(async (records) => void (await recordAttempts(options.pool, records)), MAX_RECORDS_PER_COMMIT);
  }

  /** Claims and starts what it can now, defers the rest; resolves once nothing is left to place. */
  async run(keys: readonly DeliveryKey[]): Promise<void> {
    const seen = new Set<string>();
    let pending = keys.filter((k) => {
      const id = `${k.eventId} ${k.webhookId}`;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
    const deferred: DeliveryKey[] = [];
    while (pending.length > 0) {
      await this.belowLimit();
      const room = this.options.maxInFlight - this.inFlight;
      const taken: DeliveryKey[] = [];
      const rest: DeliveryKey[] = [];
      for (const key of pending) {
        if (taken.length >= room) rest.push(key);
        else if ((this.perEndpoint.get(key.webhookId) ?? 0) >= this.options.perEndpoint) deferred.push(key);
        else {
          taken.push(key);
          this.acquire(key.webhookId);
        }
      }
      pending = rest;
      let targets: DeliveryTarget[] = [];
      try {
        targets = await claimDeliveries(this.options.pool, taken, this.options.leaseSeconds);
      } finally {
        // Slots reserved for deliveries that were not claimed (done, leased elsewhere, not due) go back.
        const claimed = new Set(targets.map((t) => `${t.eventId} ${t.webhookId}`));
        for (const key of taken) if (!claimed.has(`${key.eventId} ${key.webhookId}`)) this.release(key.webhookId);
      }
      for (const target of targets) this.start(target);
    }
    if (deferred.length > 0) {
      const dueAt = new Date(Date.now() + DEFER_MS);
      await this.options.queue.enqueueDue(deferred.map((k) => ({ ...k, dueAt })));
    }
  }

  /** Posts in flight now (for tests and metrics). */
  get active(): number {
    return this.inFlight;
  }

  /** Waits until every started attempt is posted and recorded. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  private start(target: DeliveryTarget): void {
    const task = this.attempt(target).finally(() => this.running.delete(task));
    this.running.add(task);
  }

  private async attempt(target: DeliveryTarget): Promise<void> {
    let released = false;
    const release = () => {
      if (!released) this.release(target.webhookId);
      released = true;
    };
    try {
      const record = await attemptDelivery(this.options.deps, target, { leased: true });
      release();
      await this.records.submit([record]);
      if (record.nextRetryAt) {
        await this.options.queue.enqueueDue([{ eventId: target.eventId, webhookId: target.webhookId, dueAt: record.nextRetryAt }]).catch((err: unknown) => {
          this.options.logger.warn({ err, eventId: target.eventId, webhookId: target.webhookId }, 'retry not enqueued; the reconciler will find it');
        });
      }
    } catch (err) {
      // The lease runs out and the reconciler hands the delivery out again.
      this.options.logger.error({ err, eventId: target.eventId, webhookId: target.webhookId }, 'webhook attempt not recorded');
    } finally {
      release();
    }
  }

  private acquire(webhookId: string): void {
    this.perEndpoint.set(webhookId, (this.perEndpoint.get(webhookId) ?? 0) + 1);
    this.inFlight++;
  }

  private release(webhookId: string): void {
    const left = (this.perEndpoint.get(webhookId) ?? 1) - 1;
    if (left <= 0) this.perEndpoint.delete(webhookId);
    else this.perEndpoint.set(webhookId, left);
    this.inFlight--;
    this.slotFreed.shift()?.();
  }

  private async belowLimit(): Promise<void> {
    while (this.inFlight >= this.options.maxInFlight) await new Promise<void>((resolve) => this.slotFreed.push(resolve));
  }
}
