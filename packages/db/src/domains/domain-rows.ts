import type { RecordCheck } from '@mailroom/core';
import type { Queryable } from '../pool';

export type DomainStatus = 'pending' | 'verified' | 'failed';

/** A row of `domains`. The private keys stay encrypted (`v1.…`, the secret sub-key). */
export interface DomainRow {
  id: string;
  projectId: string;
  name: string;
  status: DomainStatus;
  verificationToken: string;
  dkimSelector: string;
  dkimPublicKey: string;
  dkimPrivateKey: string;
  nextDkimSelector: string | null;
  nextDkimPublicKey: string | null;
  nextDkimPrivateKey: string | null;
  previousDkimSelector: string | null;
  previousDkimPublicKey: string | null;
  previousDkimUntil: Date | null;
  /** Last check of each record, by its key (`verification`, `dkim:<selector>`, …), and `claim`. */
  checks: Record<string, RecordCheck>;
  verifiedAt: Date | null;
  lastCheckedAt: Date | null;
  nextCheckAt: Date;
  failedChecks: number;
  createdAt: Date;
}

/** The key in `checks` saying another project holds the verified claim on the name. */
export const CLAIM_CHECK = 'claim';

// Timestamps are UTC without a zone, as Prisma writes them; read them as such whatever the session's zone.
const utc = (column: string, alias: string) => `${column} AT TIME ZONE 'UTC' AS "${alias}"`;
export const DOMAIN_COLUMNS = [
  'id',
  'project_id AS "projectId"',
  'name',
  'status',
  'verification_token AS "verificationToken"',
  'dkim_selector AS "dkimSelector"',
  'dkim_public_key AS "dkimPublicKey"',
  'dkim_private_key AS "dkimPrivateKey"',
  'next_dkim_selector AS "nextDkimSelector"',
  'next_dkim_public_key AS "nextDkimPublicKey"',
  'next_dkim_private_key AS "nextDkimPrivateKey"',
  'previous_dkim_selector AS "previousDkimSelector"',
  'previous_dkim_public_key AS "previousDkimPublicKey"',
  utc('previous_dkim_until', 'previousDkimUntil'),
  'checks',
  utc('verified_at', 'verifiedAt'),
  utc('last_checked_at', 'lastCheckedAt'),
  utc('next_check_at', 'nextCheckAt'),
  'failed_checks AS "failedChecks"',
  utc('created_at', 'createdAt'),
].join(', ');

export interface NewDomain {
  id: string;
  projectId: string;
  name: string;
  verificationToken: string;
  dkimSelector: string;
  dkimPublicKey: string;
  dkimPrivateKey: string;
}

/** Stores a new domain of the project; null when the project already has this name. */
export async function insertDomain(db: Queryable, domain: NewDomain): Promise<DomainRow | null> {
  const { rows } = await db.query<DomainRow>({
    text: `INSERT INTO domains (id, project_id, name, verification_token, dkim_selector, dkim_public_key, dkim_private_key, next_check_at, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC')
           ON CONFLICT (project_id, name) DO NOTHING
           RETURNING ${DOMAIN_COLUMNS}`,
    values: [domain.id, domain.projectId, domain.name, domain.verificationToken, domain.dkimSelector, domain.dkimPublicKey, domain.dkimPrivateKey],
  });
  return rows[0] ?? null;
}

/** One of the project's domains, or null (another project's is null too). `lock` holds the row until the transaction ends. */
export async function findDomain(db: Queryable, projectId: string | null, id: string, options: { lock?: boolean } = {}): Promise<DomainRow | null> {
  const { rows } = await db.query<DomainRow>({
    text: `SELECT ${DOMAIN_COLUMNS} FROM domains WHERE id = $1 AND ($2::text IS NULL OR project_id = $2)${options.lock ? ' FOR UPDATE' : ''}`,
    values: [id, projectId],
  });
  return rows[0] ?? null;
}

/** One page of the project's domains, newest first: ids below `before`, at most `limit`. */
export async function listDomains(db: Queryable, query: { projectId: string; before?: string | undefined; limit: number }): Promise<DomainRow[]> {
  const { rows } = await db.query<DomainRow>({
    text: `SELECT ${DOMAIN_COLUMNS} FROM domains
            WHERE project_id = $1 AND ($2::text IS NULL OR id < $2)
            ORDER BY id DESC LIMIT $3`,
    values: [query.projectId, query.before ?? null, query.limit],
  });
  return rows;
}

/** Deletes a domain of the project (its claim goes with it); false when it is not the project's. */
export async function deleteDomain(db: Queryable, projectId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query({ text: 'DELETE FROM domains WHERE id = $1 AND project_id = $2', values: [id, projectId] });
  return (rowCount ?? 0) > 0;
}

/**
 * Starts a rotation: the new key is published beside the current one and checked at once; the
 * sender keeps signing with the current key until the new record is verified. A rotation
 * already under way is replaced. Null when it is not the project's domain.
 */
export async function startDkimRotation(
  db: Queryable,
  projectId: string,
  id: string,
  key: { selector: string; publicKey: string; privateKey: string },
): Promise<DomainRow | null> {
  const { rows } = await db.query<DomainRow>({
    text: `UPDATE domains
              SET next_dkim_selector = $3, next_dkim_public_key = $4, next_dkim_private_key = $5,
                  checks = checks - ('dkim:' || coalesce(next_dkim_selector, '')),
                  failed_checks = 0, next_check_at = now() AT TIME ZONE 'UTC', updated_at = now() AT TIME ZONE 'UTC'
            WHERE id = $1 AND project_id = $2
        RETURNING ${DOMAIN_COLUMNS}`,
    values: [id, projectId, key.selector, key.publicKey, key.privateKey],
  });
  return rows[0] ?? null;
}

/**
 * Takes up to `limit` domains whose check is due and pushes their next check `leaseSeconds`
 * ahead, so concurrent schedulers take different ones and a crashed check is retried. Returns their ids.
 */
export async function takeDueDomains(db: Queryable, limit: number, leaseSeconds: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>({
    text: `UPDATE domains SET next_check_at = (now() AT TIME ZONE 'UTC') + make_interval(secs => $2)
            WHERE id IN (SELECT id FROM domains WHERE next_check_at <= now() AT TIME ZONE 'UTC'
                          ORDER BY next_check_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING id`,
    values: [limit, leaseSeconds],
  });
  return rows.map((r) => r.id);
}
