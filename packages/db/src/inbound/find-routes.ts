import type { Queryable } from '../pool';

/** A route as the MX needs it to accept a recipient. */
export interface RouteMatch {
  id: string;
  projectId: string;
  /** The stored match: `support@acme.test` or `*@acme.test`. */
  match: string;
  /** Whether the route's project holds its domain (the match's, exactly) verified now. */
  domainVerified: boolean;
}

// The route r's domain (after the match's last @) is a verified domain of its project.
const DOMAIN_VERIFIED = `EXISTS (SELECT 1 FROM domains d WHERE d.project_id = r.project_id AND d.status = 'verified'
                                   AND d.name = substring(r.match from '@([^@]*)$')) AS domain_verified`;

interface RouteMatchRow {
  id: string;
  project_id: string;
  match: string;
  domain_verified: boolean;
}

const toRouteMatch = (r: RouteMatchRow): RouteMatch => ({ id: r.id, projectId: r.project_id, match: r.match, domainVerified: r.domain_verified });

/**
 * The routes whose match is one of `matches` (already normalized by `routeCandidates`), in
 * the order of `matches`, so the first is the most specific. One indexed lookup on the
 * unique `routes.match`.
 */
export async function findRoutesByMatch(db: Queryable, matches: readonly string[]): Promise<RouteMatch[]> {
  if (matches.length === 0) return [];
  const { rows } = await db.query<RouteMatchRow>({
    name: 'mailroom-find-routes-by-match',
    text: `SELECT r.id, r.project_id, r.match, ${DOMAIN_VERIFIED} FROM routes r WHERE r.match = ANY($1::text[])`,
    values: [matches],
  });
  const byMatch = new Map(rows.map((r) => [r.match, toRouteMatch(r)]));
  return matches.flatMap((m) => byMatch.get(m) ?? []);
}

/**
 * The route that takes `postmaster@<domain>` when no route names it (RFC 5321 §4.5.1: an MX
 * must accept postmaster at every domain it serves): the domain's wildcard route if it has one,
 * else its oldest exact route (a route whose project holds the domain verified before one whose
 * does not); undefined when no route is at that domain. Routes are few and
 * postmaster mail rare, so the suffix match scans `routes` rather than keep an index for it.
 */
export async function findPostmasterRoute(db: Queryable, domain: string): Promise<RouteMatch | undefined> {
  const { rows } = await db.query<RouteMatchRow>({
    name: 'mailroom-find-postmaster-route',
    text: `SELECT r.id, r.project_id, r.match, ${DOMAIN_VERIFIED} FROM routes r
            WHERE right(r.match, length($1::text) + 1) = '@' || $1::text
            ORDER BY domain_verified DESC, r.match = '*@' || $1::text DESC, r.created_at, r.id
            LIMIT 1`,
    values: [domain],
  });
  const row = rows[0];
  return row ? toRouteMatch(row) : undefined;
}

/**
 * The project and From address of the sent email an `email_recipients` row belongs to (the
 * subject of a VERP return path), or null when no such recipient exists (deleted, or never ours).
 */
export async function findRecipientProject(db: Queryable, recipientId: string): Promise<{ projectId: string; fromAddress: string } | null> {
  const { rows } = await db.query<{ project_id: string; from_address: string }>({
    name: 'mailroom-find-recipient-project',
    text: 'SELECT e.project_id, e.from_address FROM email_recipients r JOIN emails e ON e.id = r.email_id WHERE r.id = $1',
    values: [recipientId],
  });
  const row = rows[0];
  return row ? { projectId: row.project_id, fromAddress: row.from_address } : null;
}
