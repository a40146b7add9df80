import type { DnsLookup } from './dns-resolver';

// Answers that say "nothing is published here" (NXDOMAIN, NODATA); every other error is DNS
// failing to answer (SERVFAIL, REFUSED, a timeout, a truncated answer TCP could not fetch).
const ABSENT = new Set(['ENOTFOUND', 'ENODATA']);

/**
 * `lookup` with DNS errors shaped so mailauth 4.13's SPF check gives the results RFC 7208 asks for
 * (mailauth reads a thrown error's `spfResult`; DKIM, DMARC and ARC read only `code`):
 * - a DNS error is `temperror` wherever it happens. RFC 7208 §5.2: an include whose check is
 *   `temperror` makes the result `temperror`; mailauth's include ignores an error that carries no
 *   `spfResult` (it adds one only for ETIMEOUT and EREFUSED), so a SERVFAIL under an include let
 *   evaluation go on to `-all`: `fail` for a sender the include might have listed.
 * - a PTR lookup that fails is an empty answer. RFC 7208 §5.5: "If a DNS error occurs while doing
 *   the PTR RR lookup, then this mechanism fails to match"; mailauth (its only PTR query is the
 *   ptr mechanism's) made it `temperror`, so a broken reverse zone hid the mechanisms after `ptr`.
 */
export function spfDnsErrors(lookup: DnsLookup): DnsLookup {
  return async (name, rrtype) => {
    try {
      return await lookup(name, rrtype);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && ABSENT.has(code)) throw error;
      if (rrtype.toUpperCase() === 'PTR') return [];
      const failure = error instanceof Error ? error : new Error(String(error));
      throw Object.assign(failure, { spfResult: { error: 'temperror', text: `DNS lookup of ${name} (${rrtype}) failed: ${String(code ?? (error as Error).message)}` } });
    }
  };
}
