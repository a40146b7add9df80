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
