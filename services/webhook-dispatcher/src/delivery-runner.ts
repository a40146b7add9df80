import type { DeliveryKey, Logger, WebhookQueue } from '@mailroom/core';
import { type AttemptRecord, claimDeliveries, type DeliveryTarget, type EndpointTarget, type Pool, releaseDeliveries, stopDeliveries } from '@mailroom/db';
import { type AttemptDeps, attemptDelivery } from '@mailroom/webhooks';
import { AttemptRecorder } from './attempt-recorder';

// Deliveries claimed per statement.
const MAX_CLAIM = 500;
// Deliveries waiting in memory for one endpoint; beyond it they go back to the queue for later.
const MAX_WAITING_PER_ENDPOINT = 10_000;
// Deliveries waiting in memory in all; beyond it likewise.
const MAX_WAITING = 100_000;
// How much later a delivery that found no room in memory is tried again (ms).
const DEFER_MS = 5_000;
// What a lease must still cover after a post's timeout: the record window and a commit (s).
const COMMIT_SECONDS = 2;

export interface DeliveryRunnerOptions {
  pool: Pool;
  deps: AttemptDeps;
  queue: Pick<WebhookQueue, 'enqueueDue'>;
  logger: Logger;
  /** WEBHOOK_CONCURRENCY_PER_ENDPOINT. */
  perEndpoint: number;
  /** Posts in flight in this process at once, all endpoints together. */
  maxInFlight: number;
  /** Must outlast a post and the one before it (`deliveryLeaseSeconds`). */
  leaseSeconds: number;
  /** WEBHOOK_TIMEOUT_SECONDS: the longest a post takes. */
  timeoutSeconds: number;
  /**
   * Deliveries of one endpoint claimed (leased) at once, posting or about to: see `claimAhead`.
   * The process claims as many rounds of `maxInFlight` posts in all.
   */
  claimAhead: number;
  /** Told each attempt once it is committed (metrics). */
  onRecorded?: (record: AttemptRecord) => void;
}

/**
 * How many deliveries of one endpoint may be claimed at once: as many rounds of `perEndpoint`
 * posts as fit in a lease when every post takes the whole timeout, less one round for the
 * commit, and at least one round ahead of those posting. With the defaults (lease 300 s,
 * timeout 15 s, 10 per endpoint) 180: a claim is one statement for many deliveries, and even a
 * hanging endpoint's last claimed delivery is posted before its lease runs out.
 */
export function claimAhead(options: { leaseSeconds: number; timeoutSeconds: number; perEndpoint: number }): number {
  const rounds = Math.floor((options.leaseSeconds - 5) / options.timeoutSeconds) - 1;
  return options.perEndpoint * Math.max(2, rounds);
}

const keyOf = (k: DeliveryKey) => `${k.eventId} ${k.webhookId}`;

/** A delivery job waiting in `settle`: the endpoints not yet settled. */
interface Settler {
  pending: Set<string>;
  resolve: () => void;
}

/** One endpoint's deliveries in this process. */
interface EndpointState {
  /** Unclaimed keys, in arrival order. */
  waiting: DeliveryKey[];
  /** Claimed (leased) and about to be posted. */
  ready: DeliveryTarget[];
  /** Being claimed right now. */
  claiming: number;
  /** Posts in flight. */
  posting: number;
  /**
   * It answered 410: until the commit that disables it, its claimed scheduled deliveries wait in
   * `held` instead of being posted, and nothing more is claimed for it.
   */
  halted: boolean;
  held: DeliveryTarget[];
  /** When one of its posts last ended, or began while none was posting (ms): see `stalled`. */
  progressAt: number;
}

// An endpoint with posts in flight none of which has ended for this long (ms) is stalled: a
// delivery job does not hold its queue slot waiting for it to drain (see `settle`).
const STALL_MS = 1_000;

/**
 * Runs the attempts of this process. A delivery job hands its deliveries over and completes
 * once they are nearly all posted (`settle`): they wait here, per endpoint, unclaimed. Each endpoint has at most `perEndpoint` posts
 * in flight and up to `claimAhead` deliveries claimed (so the next post starts without waiting
 * for a claim); claims are made many per statement. So a queue slot never waits on an endpoint, and
 * an endpoint that hangs holds its bound while every other endpoint's deliveries go past it.
 * Unclaimed keys are still pending and unleased in PostgreSQL: lost with the process, they are
 * found again by the reconciler. Outcomes are written by an `AttemptRecorder`.
 *
 * `claimAhead` assumes an endpoint posts `perEndpoint` at a time; when more endpoints are busy
 * than `maxInFlight` lets post at once, they take turns, and their claimed deliveries wait. So the
 * process holds at most as many rounds of `maxInFlight` claimed in all, posts the endpoints that
 * waited for the bound first, and never starts a post its lease no longer covers: such a
 * delivery is handed back, unposted. Otherwise its lease ran out while it waited, another
 * dispatcher claimed it too, and both posted it.
 */
export class DeliveryRunner {
  private readonly endpoints = new Map<string, EndpointState>();
  /** Endpoints with claimed deliveries that waited for the process-wide bound, in order. */
  private readonly blocked = new Set<string>();
  private waitingCount = 0;
  /** Deliveries claimed or being claimed here, posting or about to, all endpoints together. */
  private claimedCount = 0;
  /** The last claim left keys waiting for want of room in `claimedCount`: a post's end may make it. */
  private claimsWait = false;
  /** When each claimed delivery's claim began (ms): its lease runs from then. */
  private readonly claimedAt = new WeakMap<DeliveryTarget, number>();
  /** Keys waiting, claimed or in flight here, so a duplicate job adds nothing. */
  private readonly known = new Set<string>();
  private inFlight = 0;
  private readonly running = new Set<Promise<void>>();
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;
  private stopping = false;
  private readonly recorder: AttemptRecorder;
  /** Delivery jobs waiting for their endpoints to settle (`settle`). */
  private readonly settlers = new Set<Settler>();
  private readonly settleLimit: number;

  constructor(private readonly options: DeliveryRunnerOptions) {
    this.settleLimit = 2 * options.perEndpoint;
    this.recorder = new AttemptRecorder({
      ...options,
      idle: () => this.inFlight === 0,
      onStopped: (webhookIds) => this.stopEndpoints(webhookIds),
      onEndpoints: (endpoints) => this.refreshEndpoints(endpoints),
      onNotRecorded: (records) => this.resume(records),
    });
  }

  /** Takes deliveries to attempt as soon as their endpoints have room; those that find no room here are deferred. */
  async run(keys: readonly DeliveryKey[]): Promise<void> {
    const deferred: DeliveryKey[] = [];
    for (const key of keys) {
      const id = keyOf(key);
      if (this.known.has(id)) continue;
      const state = this.endpoint(key.webhookId);
      if (this.stopping || state.waiting.length >= MAX_WAITING_PER_ENDPOINT || this.waitingCount >= MAX_WAITING) {
        deferred.push(key);
        continue;
      }
      state.waiting.push(key);
      this.waitingCount++;
      this.known.add(id);
    }
    this.pump();
    if (deferred.length > 0) {
      const dueAt = new Date(Date.now() + (this.stopping ? 0 : DEFER_MS));
      await this.options.queue.enqueueDue(deferred.map((k) => ({ eventId: k.eventId, webhookId: k.webhookId, dueAt })));
    }
  }

  /**
   * Resolves once every endpoint of `keys` has at most two rounds of its posts (`perEndpoint`
   * each) waiting here, claimed or not; or after `maxMs`; or at a stop. A delivery job holds its
   * queue slot meanwhile, so a process takes from the queue about what it will post soon and
   * leaves the rest of a backlog to the other dispatchers: without it, the process that fetched
   * fastest held the whole backlog in memory while the others (say, the ones KEDA just added)
   * had nothing to post. An endpoint that hangs is not waited for (`settledEndpoint`), and
   * `maxMs` bounds the hold. The wait is woken by the post, claim or stop that brings an endpoint down
   * to its two rounds, not polled: a poll every 20 ms let a busy endpoint run dry between polls
   * while the next jobs were still in the queue, and the process idled half the time with one
   * busy endpoint (the webhooks bench: 7.5k → 9k deliveries/s).
   */
  async settle(keys: readonly DeliveryKey[], maxMs: number): Promise<void> {
    const pending = new Set(keys.map((k) => k.webhookId));
    for (const webhookId of pending) if (this.settledEndpoint(webhookId)) pending.delete(webhookId);
    if (pending.size === 0 || this.stopping) return;
    let settler: Settler | undefined;
    let timer: NodeJS.Timeout | undefined;
    let stallCheck: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      settler = { pending, resolve };
      this.settlers.add(settler);
      timer = setTimeout(resolve, maxMs);
      // An endpoint stalls with nothing happening to wake the settler: looked at again meanwhile.
      stallCheck = setInterval(() => {
        for (const webhookId of pending) if (this.settledEndpoint(webhookId)) pending.delete(webhookId);
        if (pending.size === 0) resolve();
      }, STALL_MS);
    });
    clearTimeout(timer);
    clearInterval(stallCheck);
    this.settlers.delete(settler as Settler);
  }

  /**
   * True when the endpoint has at most `settleLimit` deliveries here, waiting, being claimed or
   * claimed and not posting, or when it is stalled: posts in flight and none ended for STALL_MS
   * (an endpoint that hangs until the timeout). Holding a queue slot for a stalled endpoint
   * spreads nothing (another dispatcher would wait on it alike) and kept the jobs of every other
   * endpoint in the queue: a healthy endpoint's events waited minutes behind a hanging one's.
   */
  private settledEndpoint(webhookId: string): boolean {
    const state = this.endpoints.get(webhookId);
    if (!state || state.waiting.length + state.claiming + state.ready.length <= this.settleLimit) return true;
    return state.posting > 0 && Date.now() - state.progressAt >= STALL_MS;
  }

  /** The endpoint's stock went down: the settling jobs whose endpoints are all settled now resolve. */
  private wakeSettlers(webhookId: string): void {
    if (this.settlers.size === 0) return;
    if (!this.settledEndpoint(webhookId)) return;
    for (const settler of this.settlers) {
      if (!settler.pending.delete(webhookId) || settler.pending.size > 0) continue;
      this.settlers.delete(settler);
      settler.resolve();
    }
  }

  /**
   * The first step of a stop, before the queue's workers close (they wait for their jobs): jobs
   * settling stop waiting, and deliveries handed over from now on go back to the queue, due now.
   */
  stopIntake(): void {
    this.stopping = true;
    for (const settler of this.settlers) settler.resolve();
    this.settlers.clear();
  }

  /** Posts in flight now. */
  get active(): number {
    return this.inFlight;
  }

  /**
   * For a graceful stop: gives back what was not started (leases released, keys handed back to
   * the queue due now), then waits until every started attempt is posted and recorded.
   */
  async drain(): Promise<void> {
    this.stopIntake();
    await this.pumping;
    const unclaimed: DeliveryKey[] = [];
    const claimed: DeliveryKey[] = [];
    for (const state of this.endpoints.values()) {
      unclaimed.push(...state.waiting.splice(0));
      claimed.push(...[...state.ready.splice(0), ...state.held.splice(0)].map((t) => ({ eventId: t.eventId, webhookId: t.webhookId })));
    }
    this.waitingCount = 0;
    this.claimedCount -= claimed.length;
    const handBack = [...unclaimed, ...claimed];
    try {
      await releaseDeliveries(this.options.pool, claimed);
      if (handBack.length > 0) await this.options.queue.enqueueDue(handBack.map((k) => ({ ...k, dueAt: new Date() })));
    } catch (err) {
      this.options.logger.warn({ err, deliveries: handBack.length }, 'deliveries not handed back; the reconciler will find them');
    }
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
    await this.recorder.drain();
  }

  private endpoint(webhookId: string): EndpointState {
    let state = this.endpoints.get(webhookId);
    if (!state) {
      state = { waiting: [], ready: [], claiming: 0, posting: 0, halted: false, held: [], progressAt: Date.now() };
      this.endpoints.set(webhookId, state);
    }
    return state;
  }

  private forget(webhookId: string, state: EndpointState): void {
    if (state.waiting.length + state.ready.length + state.held.length + state.claiming + state.posting === 0) this.endpoints.delete(webhookId);
    this.wakeSettlers(webhookId);
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
          this.options.logger.error({ err }, 'claiming deliveries failed');
        }
      } while (this.pumpAgain && !this.stopping);
      this.pumping = null;
    })();
  }

  private async claimWhatFits(): Promise<void> {
    if (this.stopping) return;
    const taken: DeliveryKey[] = [];
    const ahead = this.options.claimAhead;
    // Claimed at once in all; claims are made in large batches, as an endpoint's are (`wantsClaim`).
    const room = this.totalAhead() - this.claimedCount;
    this.claimsWait = false;
    if (room < Math.min(this.totalAhead() / 2, this.waitingCount)) {
      this.claimsWait = this.waitingCount > 0;
      return;
    }
    const served: string[] = [];
    for (const [webhookId, state] of this.endpoints) {
      if (!this.wantsClaim(state)) continue;
      const batch = state.waiting.splice(0, Math.min(ahead - this.stock(state), MAX_CLAIM - taken.length, room - taken.length));
      this.waitingCount -= batch.length;
      state.claiming += batch.length;
      taken.push(...batch);
      served.push(webhookId);
      if (taken.length >= Math.min(MAX_CLAIM, room)) break;
    }
    // The endpoints served go last, so the next claim starts with the others.
    for (const webhookId of served) {
      const state = this.endpoints.get(webhookId) as EndpointState;
      this.endpoints.delete(webhookId);
      this.endpoints.set(webhookId, state);
    }
    if (taken.length === 0) return;
    this.claimedCount += taken.length;
    this.claimsWait = this.waitingCount > 0 && taken.length >= room;
    const claimedAt = Date.now();
    let targets: DeliveryTarget[] = [];
    try {
      targets = await claimDeliveries(this.options.pool, taken, this.options.leaseSeconds);
    } finally {
      // Not claimed (delivered already, leased elsewhere, not due, stopped, or the claim failed): forgotten here.
      const claimed = new Set(targets.map(keyOf));
      for (const key of taken) {
        const state = this.endpoint(key.webhookId);
        state.claiming--;
        if (!claimed.has(keyOf(key))) this.known.delete(keyOf(key));
      }
      this.claimedCount -= taken.length - targets.length;
      for (const target of targets) {
        const state = this.endpoint(target.webhookId);
        this.claimedAt.set(target, claimedAt);
        (state.halted && !target.manual ? state.held : state.ready).push(target);
      }
      for (const key of taken) {
        this.startReady(key.webhookId);
        const state = this.endpoints.get(key.webhookId);
        if (state) this.forget(key.webhookId, state);
      }
    }
    if (this.waitingCount > 0 && !this.claimsWait) this.pumpAgain = true;
  }

  /** Deliveries claimed at once in all: as many rounds of `maxInFlight` posts as `claimAhead` is of `perEndpoint`. */
  private totalAhead(): number {
    return this.options.maxInFlight * Math.max(1, Math.floor(this.options.claimAhead / this.options.perEndpoint));
  }

  /** Deliveries of the endpoint claimed or being claimed, posting or about to. */
  private stock(state: EndpointState): number {
    return state.posting + state.ready.length + state.held.length + state.claiming;
  }

  /** Claims are made in large batches: once half the endpoint's stock is used, or when little waits. */
  private wantsClaim(state: EndpointState): boolean {
    const free = this.options.claimAhead - this.stock(state);
    return !state.halted && state.waiting.length > 0 && free > 0 && (free >= this.options.claimAhead / 2 || free >= state.waiting.length);
  }

  /** Starts this endpoint's claimed deliveries while it has free slots. */
  private startReady(webhookId: string): void {
    const state = this.endpoints.get(webhookId);
    if (!state) return;
    // Held back by the process-wide bound: started when any post ends (`startBlocked`).
    if (state.ready.length > 0 && state.posting < this.options.perEndpoint && this.inFlight >= this.options.maxInFlight) this.blocked.add(webhookId);
    const expired: DeliveryTarget[] = [];
    const postBy = Date.now() - (this.options.leaseSeconds - this.options.timeoutSeconds - COMMIT_SECONDS) * 1000;
    while (state.ready.length > 0 && state.posting < this.options.perEndpoint && this.inFlight < this.options.maxInFlight) {
      const target = state.ready.shift() as DeliveryTarget;
      if ((this.claimedAt.get(target) ?? Number.POSITIVE_INFINITY) < postBy) {
        expired.push(target);
        continue;
      }
      if (state.posting === 0) state.progressAt = Date.now();
      state.posting++;
      this.inFlight++;
      const task = this.attempt(target, state).finally(() => this.running.delete(task));
      this.running.add(task);
    }
    if (expired.length > 0) this.handBack(expired);
  }

  /**
   * Claimed deliveries whose leases no longer cover a post and its commit: not posted, their
   * leases given back and their keys to the queue, due now, to be claimed anew.
   */
  private handBack(targets: DeliveryTarget[]): void {
    this.claimedCount -= targets.length;
    const keys = targets.map((t) => ({ eventId: t.eventId, webhookId: t.webhookId }));
    for (const key of keys) this.known.delete(keyOf(key));
    this.options.logger.warn({ deliveries: keys.length }, 'claimed deliveries waited past their lease for a post slot; handed back');
    this.claimIfRoom();
    void releaseDeliveries(this.options.pool, keys)
      .then(() => this.options.queue.enqueueDue(keys.map((k) => ({ ...k, dueAt: new Date() }))))
      .catch((err: unknown) => this.options.logger.warn({ err, deliveries: keys.length }, 'deliveries not handed back; the reconciler will find them'));
  }

  /** Starts what waited for the process-wide bound, oldest first, while there is room. */
  private startBlocked(): void {
    for (const webhookId of this.blocked) {
      if (this.inFlight >= this.options.maxInFlight) return;
      this.blocked.delete(webhookId);
      this.startReady(webhookId);
    }
  }

  private async attempt(target: DeliveryTarget, state: EndpointState): Promise<void> {
    let record: AttemptRecord | undefined;
    try {
      record = await attemptDelivery(this.options.deps, target, { leased: true });
    } catch (err) {
      // The lease runs out and the reconciler hands the delivery out again.
      this.options.logger.error({ err, eventId: target.eventId, webhookId: target.webhookId }, 'webhook attempt failed');
    }
    // A 410 disables the endpoint: what it has claimed waits for that commit (`stopEndpoints`).
    if (record?.gone) this.halt(state);
    this.release(target, state);
    // After the release: with no other post in flight, the outcome is written at once.
    if (record) this.recorder.add(record);
  }

  /** Holds back the endpoint's claimed scheduled deliveries (manual ones still go out). */
  private halt(state: EndpointState): void {
    state.halted = true;
    state.held.push(...state.ready.filter((t) => !t.manual));
    state.ready = state.ready.filter((t) => t.manual);
  }

  /** A batch was not recorded: endpoints it halted post again (nothing disabled them). */
  private resume(records: readonly AttemptRecord[]): void {
    for (const record of records) {
      const state = this.endpoints.get(record.webhookId);
      if (!record.gone || !state?.halted) continue;
      state.halted = false;
      state.ready.push(...state.held.splice(0));
      this.startReady(record.webhookId);
      if (this.wantsClaim(state)) this.pump();
    }
  }

  /**
   * These endpoints were disabled or deleted (DESIGN §5: their pending deliveries stop without
   * another attempt): their claimed scheduled deliveries are not posted but stopped in
   * PostgreSQL; manual ones (recover) still go out. Their unclaimed ones stop at their claim.
   */
  private stopEndpoints(webhookIds: readonly string[]): void {
    const stopped: DeliveryKey[] = [];
    for (const webhookId of webhookIds) {
      const state = this.endpoints.get(webhookId);
      if (!state) continue;
      for (const target of [...state.held.splice(0), ...state.ready.filter((t) => !t.manual)]) {
        this.known.delete(keyOf(target));
        this.claimedCount--;
        stopped.push({ eventId: target.eventId, webhookId });
      }
      state.ready = state.ready.filter((t) => t.manual);
      state.halted = false;
      this.forget(webhookId, state);
      if (this.wantsClaim(state)) this.pump();
    }
    this.claimIfRoom();
    if (stopped.length === 0) return;
    // Not stopped here, they stay leased: the reconciler stops them once their leases end.
    void stopDeliveries(this.options.pool, stopped).catch((err: unknown) =>
      this.options.logger.warn({ err, deliveries: stopped.length }, 'claimed deliveries of disabled endpoints not stopped; the reconciler will'),
    );
  }

  /**
   * These endpoints are posted to as given now: their claimed deliveries, which carry the URL and
   * secrets read at their claim, take them before they are posted. So after a PATCH of the URL
   * or a rotation of the secret, only the posts started before the next commit of this
   * endpoint's outcomes (about one round) go out as before, not everything claimed ahead.
   */
  private refreshEndpoints(endpoints: readonly EndpointTarget[]): void {
    for (const endpoint of endpoints) {
      const state = this.endpoints.get(endpoint.webhookId);
      if (!state) continue;
      for (const target of [...state.ready, ...state.held]) {
        target.url = endpoint.url;
        target.secretCiphertext = endpoint.secretCiphertext;
        target.previousSecretCiphertext = endpoint.previousSecretCiphertext;
      }
    }
  }

  /** Frees the post's slot and starts what it made room for. */
  private release(target: DeliveryTarget, state: EndpointState): void {
    state.posting--;
    state.progressAt = Date.now();
    this.inFlight--;
    this.claimedCount--;
    this.known.delete(keyOf(target));
    // Endpoints that waited for the process-wide bound first: this one's next post joins them.
    this.startBlocked();
    this.startReady(target.webhookId);
    this.forget(target.webhookId, state);
    if (this.wantsClaim(state)) this.pump();
    else this.claimIfRoom();
  }

  /** Claims again when the last claim stopped at the process-wide bound and there is room now. */
  private claimIfRoom(): void {
    if (this.claimsWait && this.totalAhead() - this.claimedCount >= Math.min(this.totalAhead() / 2, this.waitingCount)) this.pump();
  }
}
