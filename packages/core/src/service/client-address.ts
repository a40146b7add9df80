import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/**
 * The client's address for an HTTP request: the socket's, or, behind a proxy that is trusted
 * (`GATEWAY_TRUST_PROXY`, `TRACKING_TRUST_PROXY`), the last `X-Forwarded-For` entry: the one
 * that proxy appended, so whatever a client wrote in the header itself is never believed. An
 * entry that is no IP address (`unknown`, which some proxies write, or garbage) is not recorded
 * as one: the socket's address stands. An IPv6 zone (`%eth0`, meaningless off that host) is
 * dropped, and an IPv4-mapped IPv6 address is written as the IPv4 address.
 */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string | null {
  const forwarded = trustProxy ? req.headers['x-forwarded-for'] : undefined;
  const last = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded)?.split(',').pop()?.trim();
  const entry = last ? withoutZone(withoutPort(last)) : '';
  const address = (isIP(entry) !== 0 ? entry : null) ?? req.socket.remoteAddress ?? null;
  return address?.startsWith('::ffff:') ? address.slice(7) : address;
}

function withoutZone(address: string): string {
  const percent = address.indexOf('%');
  return percent > 0 && address.includes(':') ? address.slice(0, percent) : address;
}

/** A forwarded address without the port some proxies add (Azure Application Gateway: `203.0.113.7:51234`, `[2001:db8::7]:443`). */
function withoutPort(entry: string): string {
  if (entry.startsWith('[')) {
    const close = entry.indexOf(']');
    return close > 0 ? entry.slice(1, close) : entry;
  }
  const colon = entry.indexOf(':');
  return colon > 0 && colon === entry.lastIndexOf(':') ? entry.slice(0, colon) : entry;
}
