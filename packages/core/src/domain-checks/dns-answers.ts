import type { DomainResolver, RecordLookup } from '../check-domain-records';

// Answers that say "nothing is published here"; any other error is DNS failing to answer.
const ABSENT = new Set(['ENOTFOUND', 'ENODATA', 'NOTFOUND', 'NODATA']);
const MAX_FOUND = 5;
const MAX_FOUND_CHARS = 512;

/** One lookup's answer: the records, nothing published (NXDOMAIN, NODATA), or no answer (timeout, SERVFAIL…). */
export type Answer<T> = { kind: 'records'; records: T[] } | { kind: 'absent' } | { kind: 'failed'; code: string };

/** Whether an error from `node:dns` says the name or type has no records (rather than that DNS did not answer). */
export function isAbsent(err: unknown): boolean {
  return ABSENT.has((err as { code?: string }).code ?? '');
}

/** Runs one lookup, sorting its outcome into records, absent or failed. Never throws. */
export async function answer<T>(lookup: () => Promise<T[]>): Promise<Answer<T>> {
  try {
    return { kind: 'records', records: await lookup() };
  } catch (err) {
    if (isAbsent(err)) return { kind: 'absent' };
    return { kind: 'failed', code: (err as { code?: string }).code ?? 'error' };
  }
}

/** The TXT records at a name, each one's strings joined (RFC 7208 §3.3, RFC 6376 §3.6.2.2). */
export function txtAt(resolver: DomainResolver, name: string): Promise<Answer<string>> {
  return answer(async () => (await resolver.resolveTxt(name)).map((chunks) => chunks.join('')));
}

/** What a lookup shows of what it found: at most a few values, each shortened. */
export function shown(found: readonly string[]): string[] {
  return found.slice(0, MAX_FOUND).map(shorten);
}

export function shorten(text: string): string {
  return text.length > MAX_FOUND_CHARS ? `${text.slice(0, MAX_FOUND_CHARS)}…` : text;
}

/** A lookup's verdict with what was found and, when there is one, why. */
export function verdict(outcome: RecordLookup['outcome'], found: readonly string[], reason?: string): RecordLookup {
  return { outcome, found: shown(found), ...(reason ? { reason: shorten(reason) } : {}) };
}
