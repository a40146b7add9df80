import type { Resolver } from 'node:dns/promises';
import type { ExpectedRecord } from './domain-records';

/** The lookups a domain check makes; a `node:dns` Resolver from `createResolver(DNS_SERVERS)`. */
export type DomainResolver = Pick<Resolver, 'resolveTxt' | 'resolveMx'>;

/** What one lookup says: the record is there, something else is, nothing is, or DNS did not answer. */
export interface RecordLookup {
  outcome: 'match' | 'mismatch' | 'missing' | 'unknown';
  /** What was found at the name (TXT texts, or MX `priority host`), at most a few, shortened. */
  found: string[];
}

/** A record's state as stored and shown: pending until first found; failed when wrong or gone. */
export interface RecordCheck {
  status: 'pending' | 'verified' | 'failed';
  found: string[];
  checkedAt: string;
}

// Answers that say "nothing is published here"; any other error is DNS failing to answer.
const ABSENT = new Set(['ENOTFOUND', 'ENODATA', 'NOTFOUND', 'NODATA']);
const MAX_FOUND = 5;
const MAX_FOUND_CHARS = 512;

/** Looks one record up and compares it with what was asked for. Never throws. */
export async function lookupRecord(resolver: DomainResolver, record: ExpectedRecord): Promise<RecordLookup> {
  let found: string[];
  try {
    found =
      record.type === 'MX'
        ? (await resolver.resolveMx(record.name)).map((mx) => `${mx.priority} ${mx.exchange.toLowerCase().replace(/\.$/, '')}`)
        : (await resolver.resolveTxt(record.name)).map((chunks) => chunks.join(''));
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    return { outcome: ABSENT.has(code) ? 'missing' : 'unknown', found: [] };
  }
  const shown = found.slice(0, MAX_FOUND).map((f) => (f.length > MAX_FOUND_CHARS ? `${f.slice(0, MAX_FOUND_CHARS)}…` : f));
  const relevant = found.filter((f) => isRelevant(record, f));
  if (relevant.length === 0) return { outcome: 'missing', found: shown };
  return { outcome: matches(record, relevant) ? 'match' : 'mismatch', found: shown };
}

/** Whether a value found at the record's name is the kind of record asked for (an SPF record among other TXT…). */
function isRelevant(record: ExpectedRecord, found: string): boolean {
  if (record.type === 'MX') return true;
  switch (record.purpose) {
    case 'return_path_spf':
      return /^v=spf1(\s|$)/i.test(found);
    case 'dmarc':
      return /^v=DMARC1\s*(;|$)/i.test(found);
    case 'dkim':
      return /(^|;)\s*(v=DKIM1|p=)/i.test(found);
    default:
      return found.startsWith('mailroom-verification=');
  }
}

function matches(record: ExpectedRecord, found: string[]): boolean {
  switch (record.purpose) {
    case 'return_path_mx':
      return found.some((f) => f.split(' ')[1] === record.value);
    case 'return_path_spf': {
      // Exactly one SPF record (two is a permerror), holding every mechanism we send from.
      if (found.length !== 1) return false;
      const terms = new Set((found[0] ?? '').toLowerCase().split(/\s+/));
      return record.value.toLowerCase().split(/\s+/).filter((t) => t !== 'v=spf1' && t !== '-all').every((t) => terms.has(t));
    }
    case 'dkim': {
      const wanted = tag(record.value, 'p');
      return found.some((f) => tag(f, 'p') === wanted);
    }
    case 'dmarc':
      // Any one DMARC policy of the owner's will do; ours is only a recommendation.
      return found.length === 1;
    default:
      return found.includes(record.value);
  }
}

/** A tag's value in a `k=v; k=v` record, whitespace removed. */
function tag(record: string, name: string): string | undefined {
  for (const part of record.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim().toLowerCase() === name) return part.slice(at + 1).replace(/\s+/g, '');
  }
  return undefined;
}

/**
 * A record's new state after a lookup: found as asked → verified; something else there →
 * failed; nothing there → pending if it never was verified, else failed; DNS not answering
 * → unchanged (the schedule tries again soon).
 */
export function nextRecordCheck(previous: RecordCheck | undefined, lookup: RecordLookup, now: Date): RecordCheck {
  const checkedAt = now.toISOString();
  switch (lookup.outcome) {
    case 'match':
      return { status: 'verified', found: lookup.found, checkedAt };
    case 'mismatch':
      return { status: 'failed', found: lookup.found, checkedAt };
    case 'missing':
      return { status: previous && previous.status !== 'pending' ? 'failed' : 'pending', found: lookup.found, checkedAt };
    case 'unknown':
      return previous ?? { status: 'pending', found: [], checkedAt };
  }
}
