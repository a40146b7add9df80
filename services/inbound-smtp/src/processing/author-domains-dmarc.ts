import { type DNSResolver, dmarc as mailauthDmarc } from 'mailauth';
import { authorDomain, isInternationalized } from './ascii-domain';
import { alignedDmarcResult, type MailauthDmarc } from './dmarc-alignment';

/** The DMARC verdict for the message, as authenticate.ts stores it. */
export interface DmarcVerdict {
  result: string;
  policy: string | null;
  domain: string | null;
}

/** What DMARC weighs (RFC 7489 §4.2): SPF's domain when SPF passed, and the d= of each signature that passed (after dkim-result.ts). */
export interface PassingIdentifiers {
  spfDomain: string | null;
  dkimDomains: string[];
}

// Strictest first (RFC 7489 §6.3 p=).
const POLICY_RANK: Record<string, number> = { reject: 3, quarantine: 2, none: 1 };
const rank = (verdict: DmarcVerdict) => POLICY_RANK[verdict.policy ?? ''] ?? 0;

/**
 * DMARC when the From field names several addresses (or there are several From fields), which
 * mailauth 4.13 does not evaluate: its dmarc/verify.js answers `false` unless there is exactly one
 * address, which would be stored as `none`, so adding a second address to From would escape a
 * p=reject domain. RFC 7489 §6.6.1: "apply the DMARC check using each of those domains found in
 * the RFC5322.From field as the Author Domain and apply the most strict policy selected among the
 * checks that fail". So each distinct domain is checked (mailauth's dmarc on the identifiers that
 * passed, strict alignment by alignedDmarcResult), and the verdict is the failing check with the
 * strictest policy; failing none, a temperror if any, then the passing check with the strictest
 * policy; else `none` for the first domain. A single address is checked here too when its
 * domain is internationalized (authorDomain: mailauth would look up a name that is not its
 * A-label form, and strict alignment would compare a U-label with A-label identifiers); for any
 * other single address this is null and mailauth's own verdict stands. Domains are named in A-labels.
 */
export async function authorDomainsDmarc(addresses: readonly string[], identifiers: PassingIdentifiers, resolver: DNSResolver): Promise<DmarcVerdict | null> {
  if (addresses.length === 0 || (addresses.length === 1 && !isInternationalized(addresses[0] as string))) return null;
  const domains = [...new Set(addresses.map(authorDomain).filter(Boolean))];
  const verdicts = await Promise.all(domains.map((domain) => checkDomain(domain, identifiers, resolver)));
  const byPolicy = (result: string) => verdicts.filter((v) => v.result === result).sort((a, b) => rank(b) - rank(a))[0];
  return byPolicy('fail') ?? byPolicy('temperror') ?? byPolicy('pass') ?? { result: 'none', policy: null, domain: domains[0] ?? null };
}

async function checkDomain(domain: string, identifiers: PassingIdentifiers, resolver: DNSResolver): Promise<DmarcVerdict> {
  const found = (await mailauthDmarc({
    headerFrom: `postmaster@${domain}`,
    spfDomains: identifiers.spfDomain ? [identifiers.spfDomain] : [],
    dkimDomains: identifiers.dkimDomains.map((d) => ({ domain: d })),
    resolver,
  })) as unknown as MailauthDmarc | false;
  if (!found) return { result: 'none', policy: null, domain };
  // mailauth's relaxed DKIM alignment (organizational domains equal) is over exactly these signatures, so it holds for each that aligns.
  const relaxedAligned = Boolean(found.alignment?.dkim?.result);
  const result = alignedDmarcResult(found, domain, { spfDomain: identifiers.spfDomain, dkim: identifiers.dkimDomains.map((d) => ({ domain: d, relaxedAligned })) });
  return { result: result === 'temperr' ? 'temperror' : result, policy: found.policy || null, domain };
}
