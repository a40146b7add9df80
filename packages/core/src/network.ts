import ipaddr from 'ipaddr.js';

// Every range that is not the public internet: loopback, RFC 1918, link-local, CGNAT,
// unique-local, multicast, reserved, and IPv4 addresses wrapped in IPv6.
const PUBLIC_RANGE = 'unicast';
// The only IPv6 space IANA allocates as global unicast (its IPv6 Address Space registry): the rest
// of ::/0 is reserved or special, e.g. IPv4-compatible ::a.b.c.d (::/96, RFC 4291 §2.5.5.1, so
// ::7f00:1 is loopback) or unassigned blocks such as 4000::/3, and never a public host.
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * True when `ip` is not a public unicast address. Outbound connections chosen by users (MX
 * hosts, webhook URLs) must not reach these unless ALLOW_PRIVATE_NETWORKS is on (no SSRF).
 * Unparseable input counts as private: refuse what cannot be classified.
 */
export function isPrivateAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return true;
  let address = ipaddr.parse(ip);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    address = (address as ipaddr.IPv6).toIPv4Address();
  }
  if (address.kind() === 'ipv6' && !address.match(GLOBAL_UNICAST_V6)) return true;
  return address.range() !== PUBLIC_RANGE;
}

/**
 * What a per-client limit counts by: an IPv4 address itself, and for IPv6 its /64
 * (`2001:db8:1:2::/64`, however the address is written), since one end site holds a /64 or more
 * (RFC 6177) and could otherwise open a connection from each of its addresses. IPv4-mapped
 * addresses count as the IPv4 address; text that is no address is returned as it is.
 */
export function clientBlock(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.parse(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${v6.parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}

/** An address from its network-order bytes (4 or 16), written as ipaddr.js writes it (IPv6 compressed, RFC 5952). */
export function addressFromBytes(bytes: ArrayLike<number>): string {
  return ipaddr.fromByteArray(Array.from(bytes)).toString();
}
