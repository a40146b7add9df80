import ipaddr from 'ipaddr.js';

// Every range that is not the public internet: loopback, RFC 1918, link-local, CGNAT,
// unique-local, multicast, reserved, and IPv4 addresses wrapped in IPv6.
const PUBLIC_RANGE = 'unicast';

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
  return address.range() !== PUBLIC_RANGE;
}
