import type { Recipient } from './resolve-recipient';

/**
 * What RCPT TO decided for each recipient of a session's current transaction, so DATA stores
 * each one where it belongs without a second lookup. Keyed by the address in lower case, as
 * smtp-server keeps one envelope entry per case-insensitive address.
 */
export class Transactions {
  private readonly sessions = new Map<string, Map<string, Recipient>>();

  /** MAIL FROM: a new transaction. */
  begin(sessionId: string): void {
    this.sessions.set(sessionId, new Map());
  }

  accept(sessionId: string, recipient: Recipient): void {
    let current = this.sessions.get(sessionId);
    if (!current) {
      current = new Map();
      this.sessions.set(sessionId, current);
    }
    current.set(recipient.address.toLowerCase(), recipient);
  }

  /** The accepted recipients for the envelope's addresses, in its (RCPT) order. */
  recipients(sessionId: string, rcptTo: readonly string[]): Recipient[] {
    const current = this.sessions.get(sessionId);
    return rcptTo.flatMap((address) => current?.get(address.toLowerCase()) ?? []);
  }

  end(sessionId: string): void {
    this.sessions.delete(sessionId);
  }
}
