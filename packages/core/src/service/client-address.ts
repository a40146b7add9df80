import type { IncomingMessage } from 'node:http';

/**
 * The client's address for an HTTP request: the socket's, or, behind a proxy that is trusted
 * (`GATEWAY_TRUST_PROXY`, `TRACKING_TRUST_PROXY`), the last `X-Forwarded-For` entry: the one
 * that proxy appended, so whatever a client wrote in the header itself is never believed. An
 * IPv4-mapped IPv6 address is written as the IPv4 address.
 */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string | null {
  const forwarded = trustProxy ? req.headers['x-forwarded-for'] : undefined;
  const last = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded)?.split(',').pop()?.trim();
  const address = (last && withoutPort(last)) || req.socket.remoteAddress || null;
  return address?.startsWith('::ffff:') ? address.slice(7) : address;
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
