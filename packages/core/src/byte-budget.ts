/**
 * Bytes of input one process holds in memory at once, bounded: the MX's messages from their
 * first DATA byte to their commit (INBOUND_MAX_BUFFERED_BYTES) and the gateway's request bodies
 * from their first byte to the answer (API_MAX_BUFFERED_BYTES). Without a bound, memory would
 * be connections × the largest input (25 GB for the MX's defaults), and a few large inputs at
 * once would get the process killed with everything it serves. Past the bound an input is
 * refused with a temporary answer (452 4.3.1, 503) and its sender tries again later.
 */
export class ByteBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  /** Bytes held now. */
  get inUse(): number {
    return this.used;
  }

  /** Whether `bytes` more (at least 1: an input of unknown size) could be taken now. */
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
