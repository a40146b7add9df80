import { getDomain } from 'tldts';
import type { DomainResolver, RecordLookup } from '../check-domain-records';
import type { ExpectedRecord } from '../domain-records';
import { txtAt, verdict } from './dns-answers';

const DMARC_RECORD = /^v=DMARC1\s*(;|$)/i;
const DMARC_LABEL = '_dmarc.';

/**
 * Finds the DMARC policy that applies to the domain (RFC 7489 §6.6.3): its own record, or, for a
 * subdomain without one, its organizational domain's (the name under its public suffix). Any one
 * policy counts; two at one name are none, as receivers discard both.
 */
export async function checkDmarcRecord(resolver: DomainResolver, record: ExpectedRecord): Promise<RecordLookup> {
  const own = await txtAt(resolver, record.name);
  if (own.kind === 'failed') return verdict('unknown', []);
  const found = own.kind === 'records' ? own.records : [];
  const policies = found.filter((text) => DMARC_RECORD.test(text));
  if (policies.length > 1) return verdict('mismatch', found, tooMany(policies.length, record.name));
  if (policies.length === 1) return verdict('match', found);

  const domain = record.name.startsWith(DMARC_LABEL) ? record.name.slice(DMARC_LABEL.length) : record.name;
  const organizational = getDomain(domain, { allowPrivateDomains: true });
  if (!organizational || organizational === domain) return verdict('missing', found);
  const orgName = `${DMARC_LABEL}${organizational}`;
  const org = await txtAt(resolver, orgName);
  if (org.kind === 'failed') return verdict('unknown', found);
  const orgPolicies = (org.kind === 'records' ? org.records : []).filter((text) => DMARC_RECORD.test(text));
  if (orgPolicies.length > 1) return verdict('mismatch', found, `no DMARC record at ${record.name}, and the organizational domain's is unusable: ${tooMany(orgPolicies.length, orgName)}`);
  if (orgPolicies.length === 0) return verdict('missing', found);
  return verdict(
    'match',
    [`${orgName} (organizational domain): ${orgPolicies[0]}`],
    `no DMARC record at ${record.name}, so the organizational domain ${organizational}'s policy applies (its sp=, else its p=; RFC 7489 §6.6.3); a record published here would replace it`,
  );
}

function tooMany(count: number, name: string): string {
  return `${count} DMARC records at ${name}: receivers apply none of them (RFC 7489 §6.6.3)`;
}
