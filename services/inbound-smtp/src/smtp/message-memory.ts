/**
 * The message bytes one MX process holds in memory at once (INBOUND_MAX_BUFFERED_BYTES): every
 * message is kept whole from its first DATA byte until its commit, so without a bound the
 * process's memory would be SMTP_MAX_CONNECTIONS × INBOUND_MAX_MESSAGE_BYTES (25 GB with the
 * defaults), and a few dozen senders of large messages would get it killed. Past the bound a
 * message is refused with a temporary 452 4.3.1 and its sender tries again later.
 */
export class MessageMemory {
  private used = 0;

  constructor(readonly limit: number) {}

  /** Bytes held now. */
  get inUse(): number {
    return this.used;
  }

  /** Whether a message of `bytes` more (SIZE=, or 1 when unannounced) could start now. */
  fits(bytes: number): boolean {
    return this.used + Math.max(1, bytes) <= this.limit;
  }

  /** Takes `bytes`; false, and nothing taken, when that would pass the limit. */
  take(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}
