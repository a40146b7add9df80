import { type Queryable, verifiedDomainNames } from '@mailroom/db';

// How long a gateway remembers whether a project's domain is verified, in ms.
const REMEMBERED_MS = 1_000;
// Entries kept at most; beyond, the memory starts over.
const MAX_ENTRIES = 10_000;

/**
 * Which from domains are verified in a project, remembered for a second per gateway: every
 * send needs the answer, and a query per request was the accept path's only statement outside
 * its group commit (the accept bench fell from 0.61 to 0.40–0.51 of bare express with it).
 * Verification is a DNS-paced process, so a second's delay on another replica changes nothing a
 * sender could tell; this gateway forgets a project's domains at once when one of them is
 * verified or deleted through it.
 */
export class VerifiedDomainsCache {
  private readonly known = new Map<string, { verified: boolean; at: number }>();
  // Bumped by every forget, so a lookup that raced one (read before a delete, answered after) is not remembered.
  private generation = 0;

  constructor(
    private readonly db: Queryable,
    private readonly rememberMs = REMEMBERED_MS,
  ) {}

  /** Which of `names` are verified domains of the project. */
  async verified(projectId: string, names: readonly string[]): Promise<Set<string>> {
    const now = Date.now();
    const verified = new Set<string>();
    const unknown: string[] = [];
    for (const name of names) {
      const entry = this.known.get(key(projectId, name));
      if (entry === undefined || now - entry.at >= this.rememberMs) unknown.push(name);
      else if (entry.verified) verified.add(name);
    }
    if (unknown.length === 0) return verified;
    const generation = this.generation;
    const found = await verifiedDomainNames(this.db, projectId, unknown);
    const remember = generation === this.generation;
    if (remember && this.known.size + unknown.length > MAX_ENTRIES) this.known.clear();
    for (const name of unknown) {
      if (remember) this.known.set(key(projectId, name), { verified: found.has(name), at: now });
      if (found.has(name)) verified.add(name);
    }
    return verified;
  }

  /** Forgets the project's domains (one was verified or deleted here). */
  forget(projectId: string): void {
    this.generation++;
    const prefix = key(projectId, '');
    for (const k of this.known.keys()) if (k.startsWith(prefix)) this.known.delete(k);
  }
}

const key = (projectId: string, name: string) => `${projectId} ${name}`;
