import type { DomainResolver, RecordLookup } from '../check-domain-records';
import type { ExpectedRecord } from '../domain-records';
import { colonList, parseTagList } from './dkim-tag-list';
import { txtAt, verdict } from './dns-answers';

// A TXT record at a selector that looks like a key record (any spelling of v= or p=), so a
// broken one counts as wrong rather than as nothing published.
const KEY_LIKE = /(^|;)\s*(v\s*=\s*DKIM|p\s*=)/i;

/**
 * Judges the key record at a selector as a verifier would (RFC 6376 §3.6.1, §6.1.2): exactly one
 * key record, a valid tag list, `v=DKIM1` first if present, an `rsa` key (`k=`), usable for email
 * (`s=`) with sha256 (`h=`), and `p=` this domain's key.
 */
export async function checkDkimRecord(resolver: DomainResolver, record: ExpectedRecord): Promise<RecordLookup> {
  const txt = await txtAt(resolver, record.name);
  if (txt.kind === 'failed') return verdict('unknown', []);
  if (txt.kind === 'absent') return verdict('missing', []);
  const found = txt.records;
  const keys = found.filter((text) => KEY_LIKE.test(text));
  if (keys.length === 0) return verdict('missing', found);
  if (keys.length > 1) {
    return verdict('mismatch', found, `${keys.length} key records at ${record.name}: a verifier may use any of them (RFC 6376 §3.6.2.2), so only this domain's may stay`);
  }
  const problem = keyRecordProblem(keys[0] ?? '', record.value);
  return problem ? verdict('mismatch', found, problem) : verdict('match', found);
}

/** Why a key record would not verify our signatures, or null when it would. */
export function keyRecordProblem(text: string, expected: string): string | null {
  const parsed = parseTagList(text);
  if (!parsed.ok) return `the key record is not a valid tag list: ${parsed.reason}`;
  const tags = new Map(parsed.tags);
  const first = parsed.tags[0]?.[0];
  const v = tags.get('v');
  if (v !== undefined && v !== 'DKIM1') return `the key record's v= is "${v}", not DKIM1 (tags and values are case-sensitive)`;
  if (v !== undefined && first !== 'v') return 'the key record has v=DKIM1 but not as its first tag (RFC 6376 §3.6.1)';
  const p = tags.get('p');
  if (p === undefined) {
    const upper = parsed.tags.find(([name]) => name !== name.toLowerCase());
    return upper
      ? `the key record has no p= tag (tags are case-sensitive: ${upper[0]}= is not ${upper[0].toLowerCase()}=)`
      : 'the key record has no p= tag';
  }
  const key = p.replace(/\s+/g, '');
  if (key === '') return 'the key record has an empty p=, which means the key is revoked';
  const k = tags.get('k') ?? 'rsa';
  if (k !== 'rsa') return `the key record's k= is ${k}, not rsa`;
  const h = tags.get('h');
  if (h !== undefined && !colonList(h).includes('sha256')) return `the key record's h= is ${h}: it does not allow sha256, which signatures here use`;
  const s = tags.get('s');
  if (s !== undefined && !colonList(s).some((type) => type === '*' || type === 'email')) return `the key record's s= is ${s}: it is not for email (* or email)`;
  if (key !== keyOf(expected)) return "the key record's p= is not this domain's key for this selector";
  return null;
}

/** The `p=` of a record we publish, whitespace removed. */
function keyOf(record: string): string {
  const parsed = parseTagList(record);
  return (parsed.ok ? new Map(parsed.tags).get('p') : undefined)?.replace(/\s+/g, '') ?? '';
}
