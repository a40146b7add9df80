/**
 * Which connected sessions may hand the store a message soon: those that took a step lately
 * (connected, were answered, said MAIL FROM, RCPT TO or DATA within `activeMs`) and whose
 * message is not being committed. A client that pipelines sends its next message right after
 * its 250, so when a commit ends, the sessions it answered bring the next commit's messages;
 * the store's group commit waits for them (briefly) instead of committing the few messages it
 * has first and making the rest wait a whole commit for their own. A session that stays quiet
 * longer (an idle connection, a client still sending a long message) is not waited for.
 */
export class ExpectedMessages {
  private readonly sessions = new Set<string>();
  private readonly inStore = new Set<string>();
  // Sessions expected, by the time of their last step, oldest first.
  private readonly recent = new Map<string, number>();
  private notifyQueued = false;

  /**
   * @param fewer called when the count dropped, after the current synchronous work: a message
   *   submitted to the store right after `storing()` is in the store by then
   * @param activeMs how long after its last step a session is still expected, ms
   * @param now the clock, ms
   */
  constructor(
    private readonly fewer: () => void = () => undefined,
    private readonly activeMs = 5,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Sessions that may send a message soon. */
  get count(): number {
    const quietSince = this.now() - this.activeMs;
    for (const [sessionId, at] of this.recent) {
      if (at > quietSince) break;
      this.recent.delete(sessionId);
    }
    return this.recent.size;
  }

  /** A connection was admitted. */
  open(sessionId: string): void {
    this.sessions.add(sessionId);
    this.active(sessionId);
  }

  /** The session took a step towards its next message (MAIL FROM, RCPT TO, DATA). */
  active(sessionId: string): void {
    if (!this.sessions.has(sessionId) || this.inStore.has(sessionId)) return;
    // Re-inserted, so the map stays ordered by time.
    this.recent.delete(sessionId);
    this.recent.set(sessionId, this.now());
  }

  /** The session's message goes to the store; it sends no other until answered. */
  storing(sessionId: string): void {
    if (!this.sessions.has(sessionId) || this.inStore.has(sessionId)) return;
    this.inStore.add(sessionId);
    if (this.recent.delete(sessionId)) this.notify();
  }

  /** The session's message was answered (stored or not): it may send the next one at once. */
  answered(sessionId: string): void {
    this.inStore.delete(sessionId);
    this.active(sessionId);
  }

  close(sessionId: string): void {
    const counted = this.recent.delete(sessionId);
    this.sessions.delete(sessionId);
    this.inStore.delete(sessionId);
    if (counted) this.notify();
  }

  private notify(): void {
    if (this.notifyQueued) return;
    this.notifyQueued = true;
    queueMicrotask(() => {
      this.notifyQueued = false;
      this.fewer();
    });
  }
}
