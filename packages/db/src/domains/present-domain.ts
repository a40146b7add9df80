import { type DomainDnsSettings, type DomainRecordSource, expectedRecords, returnPathDomain, splitTxtValue } from '@mailroom/core';
import { CLAIM_CHECK, type DomainRow, type DomainStatus } from './domain-rows';

/** One record of a domain as the API shows it. */
export interface DomainRecordView {
  record: 'verification' | 'dkim' | 'return_path_mx' | 'return_path_spf' | 'dmarc';
  type: 'TXT' | 'MX';
  name: string;
  value: string;
  /** MX only. */
  priority?: number;
  /** TXT values over 255 bytes: the same text as quoted strings of at most 255 bytes each. */
  splitValue?: string;
  /** DKIM only: the key's selector and whether it is the one in use, being rotated in, or out. */
  selector?: string;
  keyState?: 'current' | 'next' | 'previous';
  required: boolean;
  status: 'pending' | 'verified' | 'failed';
  /** What the last lookup found at the name; absent before the first. */
  found?: string[];
  checkedAt?: string;
}

/** A domain as the API shows it and as `domain.updated` carries it (DESIGN §5: data = the domain). */
export interface DomainView {
  object: 'domain';
  id: string;
  name: string;
  status: DomainStatus;
  /** Where the VERP return path of its mail points; SPF is checked here, aligned with the From domain. */
  returnPathDomain: string;
  /** The selector mail is signed with once verified. */
  dkimSelector: string;
  /** Every required record is published, but another project verified this name first. */
  claimedByAnotherProject: boolean;
  records: DomainRecordView[];
  createdAt: string;
  verifiedAt: string | null;
  lastCheckedAt: string | null;
  nextCheckAt: string;
}

/** The row's parts its records depend on. */
export function recordSource(row: DomainRow): DomainRecordSource {
  return {
    name: row.name,
    verificationToken: row.verificationToken,
    dkim: { selector: row.dkimSelector, publicKey: row.dkimPublicKey },
    nextDkim: row.nextDkimSelector && row.nextDkimPublicKey ? { selector: row.nextDkimSelector, publicKey: row.nextDkimPublicKey } : null,
    previousDkim: row.previousDkimSelector && row.previousDkimPublicKey ? { selector: row.previousDkimSelector, publicKey: row.previousDkimPublicKey } : null,
  };
}

/** The API form of a domain: its records with their checks. Never its private keys. */
export function presentDomain(row: DomainRow, settings: DomainDnsSettings): DomainView {
  return {
    object: 'domain',
    id: row.id,
    name: row.name,
    status: row.status,
    returnPathDomain: returnPathDomain(row.name, settings),
    dkimSelector: row.dkimSelector,
    claimedByAnotherProject: row.checks[CLAIM_CHECK]?.status === 'failed',
    records: expectedRecords(recordSource(row), settings).map((record) => {
      const check = row.checks[record.key];
      const split = record.type === 'TXT' ? splitTxtValue(record.value) : [record.value];
      return {
        record: record.purpose,
        type: record.type,
        name: record.name,
        value: record.value,
        ...(record.priority !== undefined ? { priority: record.priority } : {}),
        ...(split.length > 1 ? { splitValue: split.map((s) => `"${s}"`).join(' ') } : {}),
        ...(record.selector ? { selector: record.selector, keyState: record.keyState } : {}),
        required: record.required,
        status: check?.status ?? 'pending',
        ...(check ? { found: check.found, ...(check.reason ? { reason: check.reason } : {}), checkedAt: check.checkedAt } : {}),
      };
    }),
    createdAt: row.createdAt.toISOString(),
    verifiedAt: row.verifiedAt?.toISOString() ?? null,
    lastCheckedAt: row.lastCheckedAt?.toISOString() ?? null,
    nextCheckAt: row.nextCheckAt.toISOString(),
  };
}
