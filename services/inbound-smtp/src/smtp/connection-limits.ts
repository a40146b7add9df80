import { clientBlock } from '@mailroom/core';

/**
 * Connections per client IP (SMTP_MAX_CONNECTIONS_PER_IP), counted from the greeting to the
 * close. The client IP is the session's remote address, which is the PROXY protocol's source
 * address behind a load balancer; IPv6 addresses count per /64. The total
 * (SMTP_MAX_CONNECTIONS) is smtp-server's `maxClients`.
 */
export class ConnectionLimits {
  private readonly perIp = new Map<string, number>();
  private readonly admitted = new Map<string, string>();

  constructor(private readonly maxPerIp: number) {}

  /** Admits session `id` from `ip`, or returns false when that IP (its /64 for IPv6) already has its maximum. */
  admit(id: string, ip: string): boolean {
    const key = clientBlock(ip);
    const count = this.perIp.get(key) ?? 0;
    if (count >= this.maxPerIp) return false;
    this.perIp.set(key, count + 1);
    this.admitted.set(id, key);
    return true;
  }

  /** Forgets session `id` (closed); a session that was never admitted is ignored. */
  release(id: string): void {
    const key = this.admitted.get(id);
    if (key === undefined) return;
    this.admitted.delete(id);
    const count = (this.perIp.get(key) ?? 1) - 1;
    if (count <= 0) this.perIp.delete(key);
    else this.perIp.set(key, count);
  }

  /** Sessions admitted and not yet closed. */
  get open(): number {
    return this.admitted.size;
  }
}
