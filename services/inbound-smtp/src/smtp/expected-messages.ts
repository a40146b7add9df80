/**
 * Which connected sessions may hand the store a message soon: every admitted session except
 * those whose message is being committed. A client that pipelines sends its next message right
 * after its 250, so when a commit ends, the sessions it answered bring the next commit's
 * messages; the store's group commit waits for them (briefly) instead of committing the few
 * messages it has first and making the rest wait a whole commit for their own.
 */
export class ExpectedMessages {
  private readonly sessions = new Set<string>();
  private readonly inStore = new Set<string>();
  private notifyQueued = false;

  /**
   * @param fewer called when the count dropped, after the current synchronous work: a message
   *   submitted to the store right after `storing()` is in the store by then
   */
  constructor(private readonly fewer: () => void = () => undefined) {}

  /** Sessions that may send a message soon. */
  get count(): number {
    return this.sessions.size - this.inStore.size;
  }

  /** A connection was admitted. */
  open(sessionId: string): void {
    this.sessions.add(sessionId);
  }

  /** The session's message goes to the store; it sends no other until answered. */
  storing(sessionId: string): void {
    if (!this.sessions.has(sessionId) || this.inStore.has(sessionId)) return;
    this.inStore.add(sessionId);
    this.notify();
  }

  /** The session's message was answered (stored or not). */
  answered(sessionId: string): void {
    this.inStore.delete(sessionId);
  }

  close(sessionId: string): void {
    const counted = this.sessions.has(sessionId) && !this.inStore.has(sessionId);
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
