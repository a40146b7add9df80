import type { Resolver } from 'node:dns/promises';
import type { ExpectedRecord } from './domain-records';
import { checkDkimRecord } from './domain-checks/check-dkim-record';
import { checkDmarcRecord } from './domain-checks/check-dmarc-record';
import { checkMxRecord } from './domain-checks/check-mx-record';
import { checkSpfRecord } from './domain-checks/check-spf-record';
import { txtAt, verdict } from './domain-checks/dns-answers';

/**
 * The lookups a domain check makes; a `node:dns` Resolver from `createResolver(DNS_SERVERS)`.
 * Evaluating SPF follows include:, a:, mx: and ptr terms, hence the address and PTR lookups.
 */
export type DomainResolver = Pick<Resolver, 'resolveTxt' | 'resolveMx' | 'resolve4' | 'resolve6' | 'resolvePtr'>;

/** What one lookup says: the record is there, something else is, nothing is, or DNS did not answer. */
export interface RecordLookup {
  outcome: 'match' | 'mismatch' | 'missing' | 'unknown';
  /** What was found at the name (TXT texts, or MX `priority host`), at most a few, shortened. */
  found: string[];
  /** Why the record is not as a receiver needs it ("the key record's k= is ed25519, not rsa"), or a note on a match. */
  reason?: string;
}

/** A record's state as stored and shown: pending until first found; failed when wrong or gone. */
export interface RecordCheck {
  status: 'pending' | 'verified' | 'failed';
  found: string[];
  /** The lookup's reason, when it gave one. */
  reason?: string;
  checkedAt: string;
}

/**
 * Looks one record up and judges it as a receiver would use it (DKIM key record syntax and
 * tags, SPF evaluated for our sending addresses, the MX preferred, a DMARC policy that applies).
 * Never throws.
 */
export async function lookupRecord(resolver: DomainResolver, record: ExpectedRecord): Promise<RecordLookup> {
  switch (record.purpose) {
    case 'dkim':
      return checkDkimRecord(resolver, record);
    case 'return_path_mx':
      return checkMxRecord(resolver, record);
    case 'return_path_spf':
      return checkSpfRecord(resolver, record);
    case 'dmarc':
      return checkDmarcRecord(resolver, record);
    case 'verification':
      return checkVerificationRecord(resolver, record);
  }
}

async function checkVerificationRecord(resolver: DomainResolver, record: ExpectedRecord): Promise<RecordLookup> {
  const txt = await txtAt(resolver, record.name);
  if (txt.kind === 'failed') return verdict('unknown', []);
  if (txt.kind === 'absent') return verdict('missing', []);
  const found = txt.records;
  const tokens = found.filter((text) => text.startsWith('mailroom-verification='));
  if (tokens.length === 0) return verdict('missing', found);
  return found.includes(record.value) ? verdict('match', found) : verdict('mismatch', found, "no record here holds this project's token");
}

/**
 * A record's new state after a lookup: found as asked → verified; something else there →
 * failed; nothing there → pending if it never was verified, else failed; DNS not answering
 * → unchanged (the schedule tries again soon).
 */
export function nextRecordCheck(previous: RecordCheck | undefined, lookup: RecordLookup, now: Date): RecordCheck {
  const checkedAt = now.toISOString();
  const reason = lookup.reason ? { reason: lookup.reason } : {};
  switch (lookup.outcome) {
    case 'match':
      return { status: 'verified', found: lookup.found, ...reason, checkedAt };
    case 'mismatch':
      return { status: 'failed', found: lookup.found, ...reason, checkedAt };
    case 'missing':
      return { status: previous && previous.status !== 'pending' ? 'failed' : 'pending', found: lookup.found, ...reason, checkedAt };
    case 'unknown':
      return previous ?? { status: 'pending', found: [], checkedAt };
  }
}
