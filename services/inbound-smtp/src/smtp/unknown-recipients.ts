/** Unknown recipients a session may give since its last accepted message; the next one gets 421. */
export const MAX_UNKNOWN_RECIPIENTS = 100;

/**
 * Counts the recipients refused with 550 per session, so a client probing addresses (a
 * directory harvest: thousands of RCPTs a second, each a PostgreSQL lookup) is cut off. An
 * accepted message starts the count over. Senders put at most about 100 recipients in one
 * transaction (the number RFC 5321 §4.5.3.1.8 has servers take), so one transaction of unknown
 * recipients stays within the limit on a new connection: a sender with stale addresses retries
 * the rest later rather than being cut off for good.
 */
export class UnknownRecipients {
  private readonly counts = new Map<string, number>();

  /** One more unknown recipient; true once the session is past its maximum. */
  refuse(sessionId: string): boolean {
    const count = (this.counts.get(sessionId) ?? 0) + 1;
    this.counts.set(sessionId, count);
    return count > MAX_UNKNOWN_RECIPIENTS;
  }

  /** A message of the session was accepted; also forgets a closed session. */
  reset(sessionId: string): void {
    this.counts.delete(sessionId);
  }

  /** Sessions with a count here. */
  get size(): number {
    return this.counts.size;
  }
}
