import { type DeliveryKey, GroupCommit, type Logger, type WebhookQueue } from '@mailroom/core';
import { type AttemptRecord, claimDeliveries, type DeliveryTarget, type Pool, recordAttempts } from '@mailroom/db';
import { type AttemptDeps, attemptDelivery } from '@mailroom/webhooks';

// Attempt records per transaction.
const MAX_RECORDS_PER_COMMIT = 500;
// Deliveries claimed per statement.
const MAX_CLAIM = 500;
// Deliveries waiting in memory for one endpoint; beyond it they go back to the queue for later.
const MAX_WAITING_PER_ENDPOINT = 1_000;
// Deliveries waiting in memory in all; beyond it likewise.
const MAX_WAITING = 20_000;
// How much later a delivery that found no room in memory is tried again (ms).
const DEFER_MS = 5_000;

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

const keyOf = (k: DeliveryKey) => `${k.eventId} ${k.webhookId}`;

/**
 * Runs the attempts of this process. A delivery job hands its deliveries over and completes at
 * once: they wait here, per endpoint, unclaimed, and are claimed (leased) only when their
 * endpoint has a free slot, many per statement. So a queue slot never waits on an endpoint, and
 * an endpoint that hangs holds at most `perEndpoint` posts while every other endpoint's
 * deliveries go past it. What waits here is still pending and unleased in PostgreSQL: lost with
 * the process, it is found again by the reconciler. Outcomes are written with a group commit;
 * retries are enqueued after their commit (the reconciler catches a lost one).
 */
export class DeliveryRunner {
  private readonly waiting = new Map<string, DeliveryKey[]>();
  private waitingCount = 0;
  /** Keys waiting or in flight here, so a duplicate job adds nothing. */
  private readonly known = new Set<string>();
  private readonly perEndpoint = new Map<string, number>();
  private inFlight = 0;
  private readonly running = new Set<Promise<void>>();
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;
  private readonly records: GroupCommit<AttemptRecord>;

  constructor(private readonly options: DeliveryRunnerOptions) {
    this.records = new GroupCommit(async (records) => void (await recordAttempts(options.pool, records)), MAX_RECORDS_PER_COMMIT);
  }

  /** Takes deliveries to attempt as soon as their endpoints have room; those that find no room here are deferred. */
  async run(keys: readonly DeliveryKey[]): Promise<void> {
    const deferred: DeliveryKey[] = [];
    for (const key of keys) {
      const id = keyOf(key);
      if (this.known.has(id)) continue;
      const list = this.waiting.get(key.webhookId) ?? [];
      if (list.length >= MAX_WAITING_PER_ENDPOINT || this.waitingCount >= MAX_WAITING) {
        deferred.push(key);
        continue;
      }
      list.push(key);
      this.waiting.set(key.webhookId, list);
      this.waitingCount++;
      this.known.add(id);
    }
    this.pump();
    if (deferred.length > 0) {
      const dueAt = new Date(Date.now() + DEFER_MS);
      await this.options.queue.enqueueDue(deferred.map((k) => ({ eventId: k.eventId, webhookId: k.webhookId, dueAt })));
    }
  }

  /** Posts in flight now. */
  get active(): number {
    return this.inFlight;
  }

  /**
   * For a graceful stop: hands the deliveries still waiting back to the queue (due now), then
   * waits until every started attempt is posted and recorded.
   */
  async drain(): Promise<void> {
    const left = [...this.waiting.values()].flat();
    this.waiting.clear();
    this.waitingCount = 0;
    if (left.length > 0) {
      const dueAt = new Date();
      await this.options.queue.enqueueDue(left.map((k) => ({ ...k, dueAt }))).catch((err: unknown) => {
        this.options.logger.warn({ err, deliveries: left.length }, 'waiting deliveries not handed back; the reconciler will find them');
      });
    }
    while (this.pumping || this.running.size > 0) await Promise.allSettled([this.pumping, ...this.running]);
  }

  /** Claims what has room, one claim at a time; asked again while claiming, it runs once more after. */
  private pump(): void {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = (async () => {
      do {
        this.pumpAgain = false;
        try {
          await this.claimWhatFits();
        } catch (err) {
          // The keys taken go back to waiting; the next release or job tries again.
          this.options.logger.error({ err }, 'claiming deliveries failed');
        }
      } while (this.pumpAgain);
      this.pumping = null;
    })();
  }

  private async claimWhatFits(): Promise<void> {
    const taken: DeliveryKey[] = [];
    for (const [webhookId, list] of this.waiting) {
      const room = Math.min(this.options.perEndpoint - (this.perEndpoint.get(webhookId) ?? 0), this.options.maxInFlight - this.inFlight, MAX_CLAIM - taken.length);
      if (room <= 0) continue;
      const batch = list.splice(0, room);
      if (list.length === 0) this.waiting.delete(webhookId);
      this.waitingCount -= batch.length;
      for (const key of batch) this.acquire(key.webhookId);
      taken.push(...batch);
      if (taken.length >= MAX_CLAIM || this.inFlight >= this.options.maxInFlight) break;
    }
    if (taken.length === 0) return;
    let targets: DeliveryTarget[];
    try {
      targets = await claimDeliveries(this.options.pool, taken, this.options.leaseSeconds);
    } catch (err) {
      for (const key of taken) {
        this.release(key.webhookId);
        this.known.delete(keyOf(key));
      }
      throw err;
    }
    // Not claimed: delivered already, leased by another dispatcher, not due, or stopped.
    const claimed = new Set(targets.map(keyOf));
    for (const key of taken) {
      if (claimed.has(keyOf(key))) continue;
      this.release(key.webhookId);
      this.known.delete(keyOf(key));
    }
    for (const target of targets) this.start(target);
    // More may fit (another endpoint, or more than MAX_CLAIM waiting).
    if (this.waitingCount > 0) this.pumpAgain = true;
  }

  private start(target: DeliveryTarget): void {
    const task = this.attempt(target).finally(() => this.running.delete(task));
    this.running.add(task);
  }

  private async attempt(target: DeliveryTarget): Promise<void> {
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.release(target.webhookId);
      this.known.delete(keyOf(target));
      if (this.waitingCount > 0) this.pump();
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
  }
}
