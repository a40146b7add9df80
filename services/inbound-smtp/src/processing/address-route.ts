// An obsolete source route before an address (RFC 5322 §4.4 obs-route: `@relay,@other:`), as
// mailparser leaves it at the front of the address it reads from `<@relay,@other:user@host>`.
const OBSOLETE_ROUTE = /^\s*@[^:<>"]*:\s*/;

/**
 * The address without an obsolete source route: RFC 5322 §4.4 has receivers ignore the route
 * of `<@relay.example,@other.example:user@example.com>` (RFC 5321 Appendix C: mail goes to the
 * address, not along the route), so the mailbox is `user@example.com`, as the MX's RCPT TO reads it.
 */
export function withoutObsoleteRoute(address: string): string {
  return address.trimStart().startsWith('@') ? address.replace(OBSOLETE_ROUTE, '') : address;
}
