import { normalizeRouteMatch } from '@mailroom/core';
import type { RouteRow } from '@mailroom/db';
import { z } from 'zod';
import { scopedProjectId } from '../../auth/auth-context';
import { listQueryFor, toPage } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { deletedSchema, idParams, listSchema, nameField, timestamp } from '../../schemas/common';
import { requireRouteDomain } from '../domains/sending-domains';
import { changeRoute, createRoute, getRoute, listProjectRoutes, removeRoute, requireRoutableMatch } from './manage-routes';

// An address is at most 254 characters; a little more leaves room for `*@` and spaces to trim.
const MAX_MATCH_INPUT = 300;
// UTS #46 maps some characters away, so a tab or line break inside a domain is refused first.
const INNER_SPACE_OR_CONTROL = /\S[\s\p{Cc}]+\S/u;

const matchField = z
  .string()
  .max(MAX_MATCH_INPUT)
  .transform((value, ctx) => {
    const match = INNER_SPACE_OR_CONTROL.test(value) ? null : normalizeRouteMatch(value);
    if (match === null) {
      ctx.addIssue({ code: 'custom', message: 'must be an email address ("support@acme.example") or a whole domain ("*@acme.example")' });
      return z.NEVER;
    }
    return match;
  })
  .meta({
    description:
      'An exact address (`support@acme.example`; also receives `support+anything@`) or a whole domain (`*@acme.example`). Stored lower-cased, the domain in its ASCII form. One match belongs to one route in the whole installation.',
    example: 'support@acme.example',
  });

const routeSchema = z
  .object({
    object: z.literal('route'),
    id: z.string().meta({ example: 'rt_01KAQ7D1E2F3G4H5J6K7M8N9P0' }),
    match: z.string().meta({ description: 'As stored: lower-cased, `local@domain` or `*@domain`.' }),
    name: z.string().nullable(),
    createdAt: timestamp,
  })
  .meta({ id: 'Route' });

const present = (route: RouteRow): z.infer<typeof routeSchema> => ({
  object: 'route',
  id: route.id,
  match: route.match,
  name: route.name,
  createdAt: route.createdAt.toISOString(),
});

const MATCH_RULES =
  'A match already used by any route, of this project or another, is 409 `conflict`; a malformed one, or one at `BOUNCE_DOMAIN` (where bounces and complaints arrive for every project), is 422 `validation_error`; with `REQUIRE_VERIFIED_DOMAINS` (the default in production), a match whose domain is not verified in the project is 403 `domain_not_verified`, and a route of another project that no longer holds the domain verified gives its match up to the project that verified it (unless webhook endpoints are scoped to it: 409). Mail to the address (or domain) is then accepted by the MX and stored as received email of this project.';

export const routeRoutes = [
  defineRoute({
    method: 'post',
    path: '/routes',
    operationId: 'createRoute',
    summary: 'Create a route: receive mail for an address or a domain',
    description: MATCH_RULES,
    tag: 'Routes',
    access: { kind: 'project' },
    body: z.object({ match: matchField, name: nameField.nullable().optional() }).meta({ id: 'CreateRouteRequest' }),
    success: { status: 201, description: 'The new route.', schema: routeSchema },
    errors: ['conflict', 'domain_not_verified'],
    async handler({ body, auth, ctx }) {
      const projectId = scopedProjectId(auth);
      requireRoutableMatch(body.match, ctx.config.bounceDomain);
      await requireRouteDomain(ctx.pool, projectId, body.match, ctx.config.requireVerifiedDomains);
      return present(await createRoute(ctx.pool, projectId, body, { takeOverLapsed: ctx.config.requireVerifiedDomains }));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/routes',
    operationId: 'listRoutes',
    summary: "List a project's routes",
    tag: 'Routes',
    access: { kind: 'project' },
    query: listQueryFor('route'),
    success: { status: 200, description: 'Routes, newest first.', schema: listSchema(routeSchema) },
    errors: [],
    async handler({ query, auth, ctx }) {
      return toPage(await listProjectRoutes(ctx.pool, scopedProjectId(auth), query), query, present);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/routes/{id}',
    operationId: 'getRoute',
    summary: 'Get a route',
    tag: 'Routes',
    access: { kind: 'project' },
    params: idParams,
    success: { status: 200, description: 'The route.', schema: routeSchema },
    errors: ['not_found'],
    async handler({ params, auth, ctx }) {
      return present(await getRoute(ctx.pool, scopedProjectId(auth), params.id));
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/routes/{id}',
    operationId: 'updateRoute',
    summary: "Change a route's match or name",
    description: `${MATCH_RULES} \`name: null\` clears the name.`,
    tag: 'Routes',
    access: { kind: 'project' },
    params: idParams,
    body: z.object({ match: matchField.optional(), name: nameField.nullable().optional() }).meta({ id: 'UpdateRouteRequest' }),
    success: { status: 200, description: 'The updated route.', schema: routeSchema },
    errors: ['not_found', 'conflict', 'domain_not_verified'],
    async handler({ params, body, auth, ctx }) {
      const projectId = scopedProjectId(auth);
      if (body.match !== undefined) {
        requireRoutableMatch(body.match, ctx.config.bounceDomain);
        await requireRouteDomain(ctx.pool, projectId, body.match, ctx.config.requireVerifiedDomains);
      }
      return present(await changeRoute(ctx.pool, projectId, params.id, body, { takeOverLapsed: ctx.config.requireVerifiedDomains }));
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/routes/{id}',
    operationId: 'deleteRoute',
    summary: 'Delete a route',
    description: 'From then on the MX refuses mail to its match (unless another route covers it). Mail already received stays. While webhook endpoints are scoped to the route it is 409 `conflict`, naming them.',
    tag: 'Routes',
    access: { kind: 'project' },
    params: idParams,
    success: { status: 200, description: 'The route was deleted.', schema: deletedSchema('route') },
    errors: ['not_found', 'conflict'],
    async handler({ params, auth, ctx }) {
      await removeRoute(ctx.pool, scopedProjectId(auth), params.id);
      return { object: 'route', id: params.id, deleted: true };
    },
  }),
];
