import { MailroomError, normalizeDomain } from '@mailroom/core';
import { type Queryable, verifiedDomainNames } from '@mailroom/db';
import type { VerifiedDomainsCache } from './verified-domains-cache';

/** The domain of an address (after the last "@"), lower-case ASCII; null when it has none. */
export function domainOf(address: string): string | null {
  return normalizeDomain(address.slice(address.lastIndexOf('@') + 1));
}

const notVerified = (domain: string, what: string) =>
  new MailroomError(
    'domain_not_verified',
    `The domain "${domain}" is not verified in this project, so ${what}. Add it with POST /domains, publish its records, then verify it.`,
  );

/**
 * Which sends are from a domain verified in the project (REQUIRE_VERIFIED_DOMAINS): with the
 * flag on, any other is 403 `domain_not_verified` and nothing is stored; with it off, the
 * answer says which will go unsigned. Returns, per from address, whether its mail is unsigned.
 */
export async function checkFromDomains(cache: VerifiedDomainsCache, projectId: string, fromAddresses: readonly string[], required: boolean): Promise<boolean[]> {
  const domains = fromAddresses.map((a) => domainOf(a) ?? '');
  const verified = await cache.verified(projectId, [...new Set(domains.filter(Boolean))]);
  const unsigned = domains.map((d) => !verified.has(d));
  const first = unsigned.indexOf(true);
  if (required && first >= 0) throw notVerified(domains[first] || fromAddresses[first] || '', 'mail cannot be sent from it');
  return unsigned;
}

/** With REQUIRE_VERIFIED_DOMAINS, a route's domain (`x@d` or `*@d`) must be verified in the project, else 403. */
export async function requireRouteDomain(db: Queryable, projectId: string, match: string, required: boolean): Promise<void> {
  if (!required) return;
  const domain = match.slice(match.lastIndexOf('@') + 1);
  if (!(await verifiedDomainNames(db, projectId, [domain])).has(domain)) throw notVerified(domain, 'no route can receive mail for it');
}
