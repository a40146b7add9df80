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
  | { kind: 'user' }
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
  success: {
    status: 200 | 201;
    description: string;
    schema: z.ZodType;
    /** Defaults to application/json; a handler for another type writes the response itself. */
    contentType?: string;
  };
  /** Error names this route may answer with, for the OpenAPI document. */
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
