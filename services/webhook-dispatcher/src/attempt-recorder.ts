import { GroupCommit, type Logger, type WebhookQueue } from '@mailroom/core';
import { type AttemptRecord, type EndpointTarget, type Pool, writeAttempts } from '@mailroom/db';

// Attempt records per transaction.
const MAX_RECORDS_PER_COMMIT = 500;
// Outcomes are gathered this long before they are handed to the group commit (ms): each
// statement then carries many (at 500 posts/s, 10 ms made a statement per 5 posts, and
// PostgreSQL's CPU per delivery was most of it), and posting never waits for them (a slot is
// freed at the answer). A crash loses at most this much of recorded outcomes: those deliveries
// are posted again after their lease, with the same webhook-id.
const RECORD_WINDOW_MS = 50;

export interface AttemptRecorderOptions {
  pool: Pool;
  queue: Pick<WebhookQueue, 'enqueueDue'>;
  logger: Logger;
  /** True while no post is in flight: an outcome is then written at once, with nothing to wait for. */
  idle: () => boolean;
  /** Told each attempt once it is committed (metrics). */
  onRecorded?: (record: AttemptRecord) => void;
  /** Told, after a commit, the endpoints of its batch that are disabled or deleted. */
  onStopped?: (webhookIds: string[]) => void;
  /** Told, after a commit, the URL and secrets of its batch's other endpoints as they are now. */
  onEndpoints?: (endpoints: EndpointTarget[]) => void;
  /** Told the records of a batch whose commit failed. */
  onNotRecorded?: (records: readonly AttemptRecord[]) => void;
}

/**
 * Writes the dispatcher's attempt outcomes: gathered for RECORD_WINDOW_MS, written with a group
 * commit (attempt rows, delivery rows, endpoints), then the failed ones' retries enqueued in one
 * call (the reconciler catches a lost one). Per batch, not per attempt, so a post costs no
 * promise or timer of its own here. An outcome not written (the commit failed) leaves its
 * delivery leased: the lease runs out and the reconciler hands it out again.
 */
export class AttemptRecorder {
  private readonly commits: GroupCommit<AttemptRecord>;
  private gathered: AttemptRecord[] = [];
  private gatherTimer: NodeJS.Timeout | null = null;
  /** Batches handed to the group commit and not yet done with. */
  private readonly writing = new Set<Promise<void>>();

  constructor(private readonly options: AttemptRecorderOptions) {
    this.commits = new GroupCommit(async (records) => {
      const { stopped, endpoints } = await writeAttempts(options.pool, records);
      if (stopped.length > 0) options.onStopped?.(stopped);
      if (endpoints.length > 0) options.onEndpoints?.(endpoints);
    }, MAX_RECORDS_PER_COMMIT);
  }

  /**
   * Takes one outcome, written with those of the next RECORD_WINDOW_MS (or at once when idle).
   * A 410 is written at once: it disables the endpoint, and the commit is what stops the
   * deliveries of it this process has claimed.
   */
  add(record: AttemptRecord): void {
    this.gathered.push(record);
    if (record.gone || this.options.idle()) this.submit();
    else this.gatherTimer ??= setTimeout(() => this.submit(), RECORD_WINDOW_MS);
  }

  /** Writes what is gathered now and waits until every outcome taken so far is written (or failed). */
  async drain(): Promise<void> {
    this.submit();
    while (this.writing.size > 0) await Promise.allSettled([...this.writing]);
  }

  private submit(): void {
    if (this.gatherTimer) clearTimeout(this.gatherTimer);
    this.gatherTimer = null;
    const batch = this.gathered;
    if (batch.length === 0) return;
    this.gathered = [];
    const done = this.write(batch).finally(() => this.writing.delete(done));
    this.writing.add(done);
  }

  private async write(batch: AttemptRecord[]): Promise<void> {
    try {
      await this.commits.submit(batch);
    } catch (err) {
      this.options.logger.error({ err, attempts: batch.length }, 'webhook attempts not recorded');
      this.options.onNotRecorded?.(batch);
      return;
    }
    const retries: { eventId: string; webhookId: string; dueAt: Date }[] = [];
    for (const record of batch) {
      this.options.onRecorded?.(record);
      if (record.nextRetryAt) retries.push({ eventId: record.eventId, webhookId: record.webhookId, dueAt: record.nextRetryAt });
    }
    if (retries.length === 0) return;
    await this.options.queue.enqueueDue(retries).catch((err: unknown) => {
      this.options.logger.warn({ err, retries: retries.length }, 'retries not enqueued; the reconciler will find them');
    });
  }
}
