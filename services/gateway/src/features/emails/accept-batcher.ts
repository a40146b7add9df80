import { GroupCommit, type Logger, type SendQueue } from '@mailroom/core';
import { insertEmails, type NewEmail, type Pool } from '@mailroom/db';

// Emails per statement: large enough to amortise a commit, small enough to keep it quick.
const MAX_EMAILS_PER_COMMIT = 500;
// Commits in flight at once: while one waits for its WAL flush, the next is already being sent.
const CONCURRENT_COMMITS = 2;

/**
 * Plain sends (no attachments, no Idempotency-Key) are stored by group commit: each request
 * is answered once its rows are committed, and the sender hears of each commit's emails as
 * one job.
 */
export class AcceptBatcher {
  private readonly commit: GroupCommit<NewEmail>;

  constructor(pool: Pool, private readonly sendQueue: SendQueue, private readonly logger: Logger) {
    this.commit = new GroupCommit(async (emails) => {
      await insertEmails(pool, emails);
      this.notifySender(emails);
    }, MAX_EMAILS_PER_COMMIT, CONCURRENT_COMMITS);
  }

  /** Resolves once `emails` (which carry no attachments) are committed. */
  submit(emails: NewEmail[]): Promise<void> {
    return this.commit.submit(emails);
  }

  private notifySender(emails: readonly NewEmail[]): void {
    notifySender(this.sendQueue, this.logger, emails).catch(() => undefined);
  }
}

/** Tells the queue about stored emails: due ones as one job, scheduled ones each at its time. */
export async function notifySender(sendQueue: SendQueue, logger: Logger, emails: readonly NewEmail[]): Promise<void> {
  const now = emails.filter((e) => e.status === 'queued').map((e) => e.id);
  const later = emails.filter((e) => e.status === 'scheduled').map((e) => ({ emailId: e.id, dueAt: e.nextAttemptAt }));
  await Promise.all([sendQueue.enqueueNow(now), sendQueue.enqueueDue(later)]).catch((err: unknown) =>
    logger.warn({ err, count: emails.length }, 'enqueue failed after commit; the reconciler will pick these up'),
  );
}
