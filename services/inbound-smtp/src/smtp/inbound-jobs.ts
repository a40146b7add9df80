import type { Logger, openQueue, queues } from '@mailroom/core';

type InboundProducer = Pick<ReturnType<typeof openQueue<typeof queues.inbound.payload>>, 'add'>;

// Ids per job at most (the queue's payload allows 1,000).
const MAX_IDS_PER_JOB = 500;
// How long ids from several commits wait to travel in one job, in ms: one Redis round trip
// for many commits instead of one each, which the MX's throughput feels at thousands a second.
// Each job costs the MX about half a millisecond of CPU (BullMQ's script call; CPU profile of
// `pnpm bench receive`): at 20 ms that was 2–3% of a core, at 100 ms it is a fifth of that,
// and processing starts at most 0.1 s later.
const COALESCE_MS = 100;

/**
 * Hands stored messages to the processing after the 250: ids from the commits of the last
 * few milliseconds become one `inbound` job. Nothing here is needed for durability: the
 * rows are committed already, and the inbound reconciler finds any whose job is lost (a
 * failed add, or a crash before the flush).
 */
export class InboundJobs {
  private pending: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight = new Set<Promise<void>>();

  constructor(
    private readonly producer: InboundProducer,
    private readonly logger: Logger,
  ) {}

  /** Ids of messages just committed. */
  add(ids: readonly string[]): void {
    this.pending.push(...ids);
    if (this.pending.length >= MAX_IDS_PER_JOB) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), COALESCE_MS);
  }

  /** Sends what is pending and waits for every job in flight. */
  async close(): Promise<void> {
    this.flush();
    await Promise.all(this.inFlight);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.pending.length > 0) {
      const ids = this.pending.splice(0, MAX_IDS_PER_JOB);
      const sent: Promise<void> = this.producer
        .add({ receivedEmailIds: ids })
        .then(
          () => undefined,
          (err: unknown) => this.logger.warn({ err, ids: ids.length }, 'enqueueing received mail failed; the inbound reconciler will find it'),
        )
        .finally(() => this.inFlight.delete(sent));
      this.inFlight.add(sent);
    }
  }
}
