import { GroupCommit, type Logger } from '@mailroom/core';
import { insertReceivedEmails, type Pool, type ReceivedMessage } from '@mailroom/db';

// Messages per commit at most.
const MAX_MESSAGES_PER_COMMIT = 64;
// Commits in flight at once. One: on a busy host the commit is CPU-bound, not flush-bound, and
// one writer makes fewer, larger commits (measured with `pnpm bench`, receive: 0.31 vs 0.29 with
// two; again with the replies batched, four alternating rounds: 0.41 vs 0.36, about 4 messages
// per commit vs 2, and a third more PostgreSQL CPU per message with two).
const MAX_WRITERS = 1;
// Messages larger than this (bytes) are committed on their own: a commit's statement holds
// its messages' bytes, so big ones are not piled together.
const MAX_GROUPED_MESSAGE_BYTES = 256 * 1024;
// Longest the writer waits for the messages of sessions it expects one from before committing
// what it has, ms; also how long after its last step a session is expected (ExpectedMessages),
// so an idle connection never holds a commit. With 10 pipelining clients and no wait, commits
// split into two cohorts (1 + 9, or 5 + 5 when commits are slow) that each wait for the other's
// commit; waiting puts the 10 in one (`pnpm bench receive`). The wait is not cut to the last
// commit's duration: reading 10 messages can take longer than committing them, and a cut hold
// split the cohort again (about 8.4 messages per commit instead of 10 under load).
export const MAX_HOLD_MS = 5;

export interface MessageStoreOptions {
  pool: Pool;
  /** Called with the ids of every commit, after it; the inbound queue's producer. Must not throw. */
  committed(ids: string[]): void;
  /** True while connected sessions may send a message soon (see ExpectedMessages). */
  moreExpected(): boolean;
  logger: Logger;
}

/**
 * Stores received messages durably before their 250. Concurrent messages share one
 * statement and one commit (group commit), so the cost of a WAL flush is spread over every
 * message in flight; a message is answered once its own commit is done. Before committing, the
 * writer waits (at most MAX_HOLD_MS) for the messages of sessions expected to send one.
 */
export class MessageStore {
  private readonly group: GroupCommit<ReceivedMessage>;

  constructor(private readonly options: MessageStoreOptions) {
    this.group = new GroupCommit((messages) => this.write(messages), MAX_MESSAGES_PER_COMMIT, MAX_WRITERS, {
      expected: () => options.moreExpected(),
      maxMs: MAX_HOLD_MS,
      // Only sessions that took a step within MAX_HOLD_MS are expected: their messages come.
      cutToLastWrite: false,
    });
  }

  /** Fewer messages are expected (a session's message came, or it left): a waiting commit may go. */
  wake(): void {
    this.group.wake();
  }

  /** Resolves once the message's rows are committed; rejects (nothing stored) otherwise. */
  store(message: ReceivedMessage): Promise<void> {
    return message.raw.length > MAX_GROUPED_MESSAGE_BYTES ? this.write([message]) : this.group.submit([message]);
  }

  private async write(messages: ReceivedMessage[]): Promise<void> {
    await insertReceivedEmails(this.options.pool, messages);
    this.options.committed(messages.flatMap((m) => m.copies.map((c) => c.id)));
  }
}
