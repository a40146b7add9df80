import type { Queryable } from '../pool';
import { isUniqueViolation } from '../sql-errors';

/** A row of `routes`: one match string (an address or `*@domain`) owned by one project. */
export interface RouteRow {
  id: string;
  projectId: string;
  /** Already normalized (`normalizeRouteMatch` in core). */
  match: string;
  name: string | null;
  createdAt: Date;
}

// created_at is UTC without a zone, as Prisma writes it; read it as such whatever the session's zone.
const COLUMNS = `id, project_id AS "projectId", match, name, created_at AT TIME ZONE 'UTC' AS "createdAt"`;

/**
 * Stores a new route, or answers null when another route (of any project) already has this
 * match. The unique index decides, so two concurrent inserts of one match store exactly one.
 */
export async function insertRoute(db: Queryable, route: { id: string; projectId: string; match: string; name: string | null }): Promise<RouteRow | null> {
  const { rows } = await db.query<RouteRow>({
    text: `INSERT INTO routes (id, project_id, match, name, created_at)
           VALUES ($1, $2, $3, $4, now() AT TIME ZONE 'UTC')
           ON CONFLICT (match) DO NOTHING
           RETURNING ${COLUMNS}`,
    values: [route.id, route.projectId, route.match, route.name],
  });
  return rows[0] ?? null;
}

/** One of the project's routes, or null (another project's route is null too). */
export async function findRoute(db: Queryable, projectId: string, id: string): Promise<RouteRow | null> {
  const { rows } = await db.query<RouteRow>({
    text: `SELECT ${COLUMNS} FROM routes WHERE id = $1 AND project_id = $2`,
    values: [id, projectId],
  });
  return rows[0] ?? null;
}

/** One page of the project's routes, newest first: ids below `before`, at most `limit`. */
export async function listRoutes(db: Queryable, query: { projectId: string; before?: string | undefined; limit: number }): Promise<RouteRow[]> {
  const { rows } = await db.query<RouteRow>({
    text: `SELECT ${COLUMNS} FROM routes
            WHERE project_id = $1 AND ($2::text IS NULL OR id < $2)
            ORDER BY id DESC
            LIMIT $3`,
    values: [query.projectId, query.before ?? null, query.limit],
  });
  return rows;
}

export interface RouteChanges {
  match?: string | undefined;
  /** null clears the name; undefined leaves it. */
  name?: string | null | undefined;
}

/**
 * Changes a route of the project. `not_found` when it is not the project's; `match_taken` when
 * the new match belongs to another route (the unique index decides, race-free).
 */
export async function updateRoute(
  db: Queryable,
  projectId: string,
  id: string,
  changes: RouteChanges,
): Promise<{ route: RouteRow } | 'not_found' | 'match_taken'> {
  try {
    const { rows } = await db.query<RouteRow>({
      text: `UPDATE routes
                SET match = COALESCE($3, match),
                    name = CASE WHEN $4::boolean THEN $5 ELSE name END
              WHERE id = $1 AND project_id = $2
          RETURNING ${COLUMNS}`,
      values: [id, projectId, changes.match ?? null, changes.name !== undefined, changes.name ?? null],
    });
    const route = rows[0];
    return route ? { route } : 'not_found';
  } catch (err) {
    if (isUniqueViolation(err)) return 'match_taken';
    throw err;
  }
}

/** Deletes a route of the project; false when it is not the project's. */
export async function deleteRoute(db: Queryable, projectId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query({ text: 'DELETE FROM routes WHERE id = $1 AND project_id = $2', values: [id, projectId] });
  return (rowCount ?? 0) > 0;
}

/**
 * Deletes the route of another project holding `match` when that project does not hold the
 * match's domain verified (REQUIRE_VERIFIED_DOMAINS: the caller has verified it, and only one
 * project can hold a name verified), so the domain's verified holder can take the address over.
 * A route that webhook endpoints are scoped to is kept (they are its project's to change).
 * True when one was deleted.
 */
export async function releaseLapsedRoute(db: Queryable, match: string, takerProjectId: string): Promise<boolean> {
  const { rowCount } = await db.query({
    text: `DELETE FROM routes r
            WHERE r.match = $1 AND r.project_id <> $2
              AND NOT EXISTS (SELECT 1 FROM domains d WHERE d.project_id = r.project_id AND d.status = 'verified'
                                                       AND d.name = substring(r.match from '@([^@]*)$'))
              AND NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.route_id = r.id)`,
    values: [match, takerProjectId],
  });
  return (rowCount ?? 0) > 0;
}
