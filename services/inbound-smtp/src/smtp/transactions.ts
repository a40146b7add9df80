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

  /** True from the session's MAIL FROM until its close. */
  has(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  /** Ignored for a session that has no transaction (it closed while its RCPT was looked up). */
  accept(sessionId: string, recipient: Recipient): void {
    this.sessions.get(sessionId)?.set(recipient.address.toLowerCase(), recipient);
  }

  /** The accepted recipients for the envelope's addresses, in its (RCPT) order. */
  recipients(sessionId: string, rcptTo: readonly string[]): Recipient[] {
    const current = this.sessions.get(sessionId);
    return rcptTo.flatMap((address) => current?.get(address.toLowerCase()) ?? []);
  }

  end(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  /** Sessions with a transaction here. */
  get size(): number {
    return this.sessions.size;
  }
}
