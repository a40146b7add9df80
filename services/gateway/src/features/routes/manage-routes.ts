import { conflict, isId, MailroomError, newId, normalizeDomain, notFound } from '@mailroom/core';
import {
  deleteRoute as deleteRouteRow,
  findRoute,
  findWebhooksOfRoute,
  insertRoute,
  isForeignKeyViolation,
  listRoutes,
  releaseLapsedRoute,
  updateRoute as updateRouteRow,
  type Queryable,
  type RouteChanges,
  type RouteRow,
} from '@mailroom/db';
import type { ListQuery } from '../../http/pagination';

// The same words whether the match was taken by this project or another: routes are
// first-come within one installation (DESIGN §7), and the owner is not revealed.
const taken = (match: string) => conflict(`The match "${match}" is already used by a route.`);

/**
 * A route may not claim BOUNCE_DOMAIN (422 `validation_error`): the MX takes VERP bounces and
 * complaints there for every project, and a route would receive whatever arrives there that is
 * not one (a bounce whose return path a relay mangled, holding another project's message).
 */
export function requireRoutableMatch(match: string, bounceDomain: string): void {
  const domain = match.slice(match.lastIndexOf('@') + 1);
  if (domain !== (normalizeDomain(bounceDomain) ?? bounceDomain.toLowerCase())) return;
  throw new MailroomError('validation_error', `\`match\`: ${domain} is BOUNCE_DOMAIN, where Mailroom receives bounces and complaints for every project; it cannot be routed.`);
}

/**
 * Creates a route; its match (already normalized) must not belong to any route yet, else 409
 * `conflict`. With `takeOverLapsed` (REQUIRE_VERIFIED_DOMAINS, the caller's project holding the
 * domain verified), a route of another project that no longer holds the domain is removed first.
 */
export async function createRoute(
  db: Queryable,
  projectId: string,
  input: { match: string; name?: string | null | undefined },
  options: { takeOverLapsed: boolean },
): Promise<RouteRow> {
  const insert = () => insertRoute(db, { id: newId('route'), projectId, match: input.match, name: input.name ?? null });
  let route = await insert();
  if (!route && options.takeOverLapsed && (await releaseLapsedRoute(db, input.match, projectId))) route = await insert();
  if (!route) throw taken(input.match);
  return route;
}

/** One route of the project; another project's is 404 like a missing one. */
export async function getRoute(db: Queryable, projectId: string, id: string): Promise<RouteRow> {
  const route = isId('route', id) ? await findRoute(db, projectId, id) : null;
  if (!route) throw notFound('route');
  return route;
}

/** `limit + 1` routes of the project after the cursor, newest first (see `toPage`). */
export function listProjectRoutes(db: Queryable, projectId: string, query: ListQuery): Promise<RouteRow[]> {
  return listRoutes(db, { projectId, before: query.after, limit: query.limit + 1 });
}

/** Changes a route's match or name; a match used by another route is 409 `conflict` (`takeOverLapsed` as for `createRoute`). */
export async function changeRoute(db: Queryable, projectId: string, id: string, changes: RouteChanges, options: { takeOverLapsed: boolean }): Promise<RouteRow> {
  if (!isId('route', id)) throw notFound('route');
  let result = await updateRouteRow(db, projectId, id, changes);
  if (result === 'match_taken' && changes.match !== undefined && options.takeOverLapsed && (await releaseLapsedRoute(db, changes.match, projectId))) {
    result = await updateRouteRow(db, projectId, id, changes);
  }
  if (result === 'not_found') throw notFound('route');
  if (result === 'match_taken') throw taken(changes.match ?? '');
  return result.route;
}

/** Deletes a route; while webhook endpoints are scoped to it (the foreign key decides), 409 `conflict` naming them. */
export async function removeRoute(db: Queryable, projectId: string, id: string): Promise<void> {
  if (!isId('route', id)) throw notFound('route');
  try {
    if (!(await deleteRouteRow(db, projectId, id))) throw notFound('route');
  } catch (err) {
    if (!isForeignKeyViolation(err)) throw err;
    const webhooks = await findWebhooksOfRoute(db, projectId, id);
    const named = webhooks.length > 0 ? ` (${webhooks.join(', ')})` : '';
    throw conflict(`Webhook endpoints are scoped to this route${named}; delete them or clear their routeId first.`);
  }
}
