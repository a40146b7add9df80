import type { ErrorName } from '@mailroom/core';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { GatewayContext } from '../context';
import type { AuthContext } from '../auth/auth-context';

/**
 * Who may call a route.
 * - `public`: anyone.
 * - `user`: an API token, or a console session without X-Project-Id (such as `GET /projects`).
 * - `project`: an API token, or a console session whose user belongs to the project. The project
 *   is the `{id}` path parameter when `projectFromPath`, else the token's or X-Project-Id.
 */
export type Access =
  | { kind: 'public' }
  | {
      kind: 'user';
      /** Refuse API tokens: only a console session may do this (such as signing out). */
      sessionOnly?: boolean;
    }
  | {
      kind: 'project';
      projectFromPath?: boolean;
      /** Refuse API tokens: only a console session may do this. */
      sessionOnly?: boolean;
      /** Only the project's owners (never an API token). */
      ownerOnly?: boolean;
      /** `sending_access` tokens may call it. */
      sending?: boolean;
    };

/** Whether `sending_access` API keys may call a route with this access rule; they may call no other. */
export function isSendingRoute(access: Access): boolean {
  return access.kind === 'project' && access.sending === true;
}

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

export interface HandlerInput<Body, Query, Params> {
  body: Body;
  query: Query;
  params: Params;
  auth: AuthContext;
  ctx: GatewayContext;
  req: Request;
  res: Response;
}

/** One endpoint: validation, authorization and its OpenAPI entry all come from this definition. */
export interface RouteDefinition<
  BodySchema extends z.ZodType = z.ZodType,
  QuerySchema extends z.ZodType = z.ZodType,
  ParamsSchema extends z.ZodType = z.ZodType,
> {
  method: HttpMethod;
  /** OpenAPI style, e.g. `/projects/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  access: Access;
  body?: BodySchema;
  query?: QuerySchema;
  params?: ParamsSchema;
  /** Defaults to 1 MB (DESIGN §4). */
  bodyLimit?: string;
  /**
   * Checks of the request's headers that come before its body is read (a malformed
   * Idempotency-Key is refused as such, whatever the body holds, and before it is read).
   */
  checkHeaders?: (req: Request) => void;
  /** A member of the body given as `null` is taken as not given (sends); elsewhere null is a value (PATCH clears with it). */
  nullIsAbsent?: boolean;
  success: {
    status: 200 | 201 | 202;
    description: string;
    schema: z.ZodType;
    /** Defaults to application/json; a handler for another type writes the response itself. */
    contentType?: string;
    /** Other types the handler may answer with, documented with the same schema. */
    otherContentTypes?: readonly string[];
  };
  /**
   * Errors the handler itself may answer with, for the OpenAPI document. Those implied by the
   * access rule and the inputs are added by `routeErrors`; do not list them here.
   */
  errors: ErrorName[];
  handler(input: HandlerInput<z.output<BodySchema>, z.output<QuerySchema>, z.output<ParamsSchema>>): Promise<unknown>;
}

/** Identity function that keeps the schema types of one route tied to its handler. */
export function defineRoute<B extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, P extends z.ZodType = z.ZodType>(
  route: RouteDefinition<B, Q, P>,
): RouteDefinition<B, Q, P> {
  return route;
}

// biome-ignore lint/suspicious/noExplicitAny: a heterogeneous route table; each entry is checked by defineRoute.
export type AnyRoute = RouteDefinition<any, any, any>;

/**
 * Every error a route can answer with: what the router and `authorize` raise for its access
 * rule and inputs, and what its handler raises. 500 and 503 apply to every route.
 */
export function routeErrors(route: AnyRoute): ErrorName[] {
  const { access } = route;
  const implied: ErrorName[] = [];
  if (access.kind !== 'public') {
    // An Authorization header is verified even where only sessions are accepted.
    implied.push('missing_api_key', 'invalid_api_key', 'invalid_session', 'rate_limit_exceeded');
  }
  if (access.kind === 'user' && access.sessionOnly) implied.push('forbidden');
  if (access.kind === 'project') {
    const tokensAllowed = !access.sessionOnly && !access.ownerOnly;
    if (access.projectFromPath) implied.push('not_found');
    // X-Project-Id is required of sessions, and must name a project of the caller's.
    else implied.push('missing_required_field', 'forbidden');
    if (!tokensAllowed) implied.push('forbidden');
  }
  if (access.kind !== 'public' && !isSendingRoute(access)) implied.push('restricted_api_key');
  // Every route reads what is sent, a body or not (one it takes no body from is dropped, within the same limit).
  implied.push('invalid_json', 'request_timeout', 'payload_too_large');
  if (route.body) implied.push('validation_error', 'missing_required_field');
  // No query parameter is required; a path parameter that cannot be valid names nothing (404).
  if (route.query) implied.push('validation_error');
  if (route.params) implied.push('not_found');
  return [...new Set([...implied, ...route.errors])];
}
