import type { Queryable } from '../pool';

/** What the sender needs to sign a message from a verified domain and align its return path. */
export interface SigningDomain {
  name: string;
  selector: string;
  /** Encrypted with the secret sub-key (`decryptSecret(deriveKey(secret, 'encryption'), …)`). */
  privateKeyCiphertext: string;
}

/** The project's verified domain of this name (ASCII, lower-case) with its current key, or null. */
export async function findSigningDomain(db: Queryable, projectId: string, name: string): Promise<SigningDomain | null> {
  const { rows } = await db.query<SigningDomain>({
    name: 'mailroom-find-signing-domain',
    text: `SELECT name, dkim_selector AS selector, dkim_private_key AS "privateKeyCiphertext"
             FROM domains WHERE project_id = $1 AND name = $2 AND status = 'verified'`,
    values: [projectId, name],
  });
  return rows[0] ?? null;
}

/** Which of `names` are verified domains of the project. */
export async function verifiedDomainNames(db: Queryable, projectId: string, names: readonly string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const { rows } = await db.query<{ name: string }>({
    name: 'mailroom-verified-domain-names',
    text: `SELECT name FROM domains WHERE project_id = $1 AND name = ANY($2::text[]) AND status = 'verified'`,
    values: [projectId, names],
  });
  return new Set(rows.map((r) => r.name));
}

/**
 * Whether `host` is the return-path subdomain (`<label>.<name>`) of a domain verified in any
 * project: the MX accepts VERP addresses there (DESIGN §7).
 */
export async function isVerifiedReturnPathDomain(db: Queryable, host: string, label: string): Promise<boolean> {
  const prefix = `${label}.`;
  if (!host.startsWith(prefix)) return false;
  const { rows } = await db.query({
    name: 'mailroom-verified-return-path',
    text: `SELECT 1 FROM domains WHERE name = $1 AND status = 'verified' LIMIT 1`,
    values: [host.slice(prefix.length)],
  });
  return rows.length > 0;
}
