import type { Queryable } from '../pool';

/** What the sender needs to sign a message from a verified domain and align its return path. */
export interface SigningDomain {
  name: string;
  selector: string;
  /** Encrypted with the secret sub-key (`decryptSecret(deriveKey(secret, 'encryption'), …)`). */
  privateKeyCiphertext: string;
}

/** A project's domain, by name (ASCII, lower-case). */
export interface ProjectDomainName {
  projectId: string;
  name: string;
}

/**
 * Those of the projects' domains that are verified, with their current keys, in one statement:
 * the sender looks up every email of a job at once.
 */
export async function findSigningDomains(db: Queryable, keys: readonly ProjectDomainName[]): Promise<(SigningDomain & ProjectDomainName)[]> {
  if (keys.length === 0) return [];
  const { rows } = await db.query<SigningDomain & ProjectDomainName>({
    name: 'mailroom-find-signing-domains',
    text: `SELECT d.project_id AS "projectId", d.name, d.dkim_selector AS selector, d.dkim_private_key AS "privateKeyCiphertext"
             FROM domains d JOIN unnest($1::text[], $2::text[]) AS k(project_id, name) ON d.project_id = k.project_id AND d.name = k.name
            WHERE d.status = 'verified'`,
    values: [keys.map((k) => k.projectId), keys.map((k) => k.name)],
  });
  return rows;
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
