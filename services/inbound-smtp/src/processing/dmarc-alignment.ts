import { authorDomain } from './ascii-domain';

/** What this module reads of mailauth's DMARC result (mailauth 4.13 `dmarc`). */
export interface MailauthDmarc {
  status: { result: string; header?: { from?: string; d?: string } };
  policy?: string;
  alignment?: {
    spf?: { result?: string | false; strict?: boolean };
    dkim?: { result?: string | false; strict?: boolean };
  };
}

/** The identifiers DMARC weighs (RFC 7489 §4.2): SPF's domain when SPF passed, and each passing signature. */
export interface AuthenticatedIdentifiers {
  spfDomain: string | null;
  /** A passing signature's d=, and whether it shares the From domain's organizational domain (mailauth's per-signature `aligned`). */
  dkim: { domain: string; relaxedAligned: boolean }[];
}

const lower = (domain: string) => domain.toLowerCase().replace(/\.$/, '');

/**
 * The DMARC result with the identifier alignment of RFC 7489 §3.1 as the record asks for it.
 *
 * mailauth 4.13 (dmarc/verify.js, tools.js getAlignment) does not enforce strict alignment:
 * it passes `{strict}` where a boolean is expected, then in its strict branch compares the
 * organizational domain of the identifier with the From domain, and falls back to relaxed
 * matching in every case. So `adkim=s` and `aspf=s` pass a d= or MAIL FROM domain that merely
 * shares the From domain's organizational domain, where §3.1.1 and §3.1.2 require the two to be
 * identical. Its relaxed comparison (organizational domains equal) is right and is kept (for
 * DKIM, per signature, so a signature whose pass dkim-result.ts withdrew does not count); a
 * strict one is decided here, by exact comparison (case-insensitive, as DNS names are).
 *
 * A result other than pass or fail (none, temperror: no record was read) is returned unchanged.
 */
export function alignedDmarcResult(dmarc: MailauthDmarc, fromDomain: string | null, identifiers: AuthenticatedIdentifiers): string {
  const result = dmarc.status.result;
  if ((result !== 'pass' && result !== 'fail') || !fromDomain) return result;
  const from = lower(fromDomain);
  const spf = dmarc.alignment?.spf;
  const dkim = dmarc.alignment?.dkim;
  const spfAligned = spf?.strict ? identifiers.spfDomain !== null && lower(identifiers.spfDomain) === from : Boolean(spf?.result);
  const dkimAligned = identifiers.dkim.some((signature) => (dkim?.strict ? lower(signature.domain) === from : signature.relaxedAligned));
  return spfAligned || dkimAligned ? 'pass' : 'fail';
}

/**
 * A signature's `aligned` as served: with the From domain's record asking for strict DKIM
 * alignment (`adkim=s`), its d= must be the From domain itself (RFC 7489 §3.1.1); otherwise
 * mailauth's relaxed answer (`relaxed`: the same organizational domain) stands.
 */
export function dkimAligned(dmarc: MailauthDmarc | null, fromDomain: string | null, domain: string | null, relaxed: boolean): boolean {
  if (!dmarc?.alignment?.dkim?.strict) return relaxed;
  return fromDomain !== null && domain !== null && lower(domain) === lower(fromDomain);
}

/**
 * The RFC5322.From domain DMARC was evaluated for: what RFC 7489 §11.2 has Authentication-Results
 * report as `header.from`. mailauth reports the organizational domain instead (its `domain`,
 * and its `header.from`), and names the From domain only once a record is found (`header.d`);
 * otherwise the domain of its single From address is taken.
 */
export function dmarcFromDomain(dmarc: MailauthDmarc | null, headerFrom: readonly string[] | undefined): string | null {
  const fromRecord = dmarc?.status.header?.d;
  if (fromRecord) return lower(fromRecord);
  if (headerFrom?.length !== 1) return null;
  const address = headerFrom[0] ?? '';
  const at = address.lastIndexOf('@');
  // In A-labels (authorDomain), as a found record's name is.
  return at >= 0 && at < address.length - 1 ? authorDomain(address) : null;
}
