import { ByteBudget, ConfigError, MailroomError } from '@mailroom/core';
import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import { Gauge } from 'prom-client';
import type { AuthContext } from '../auth/auth-context';
import { authenticate } from '../auth/authenticate';
import { authorize } from '../auth/authorize';
import type { GatewayContext } from '../context';
import { camelizeKeys } from './aliases';
import { consumeRateLimit, countStalledLogin, loginClientKey } from './rate-limit';
import { jsonBodyReader } from './read-json-body';
import type { Access, AnyRoute } from './route';
import { bodyDeadlineMs, parseSize, type HttpTimeouts } from './timeouts';
import { parseInput } from './validate';

const PUBLIC: AuthContext = { principal: null, projectId: null, role: null };
const DEFAULT_BODY_LIMIT = '1mb';
// Field names whose keys are the caller's data, not ours: never camelized.
const OPAQUE_FIELDS = new Set(['headers', 'metadata']);
const camelize = (value: unknown) => camelizeKeys(value, OPAQUE_FIELDS);
const camelizeWithoutNulls = (value: unknown) => camelizeKeys(value, OPAQUE_FIELDS, 0, true);
// API answers hold a caller's data and secrets (tokens, webhook secrets, sessions, mail) and no
// validators: no browser or proxy cache may keep them. Sessions travel in X-Service-Session,
// which caches do not know as a credential, as they do Authorization. A route may set its own.
const API_CACHE_CONTROL = 'no-store';

/** `/projects/{id}` → `/projects/:id`. */
const toExpressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');
// Case-insensitive, a trailing slash allowed: as express matches its routes.
const toRegExp = (path: string) => new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}/?$`, 'i');
const paramCount = (path: string) => (path.match(/\{\w+\}/g) ?? []).length;

/**
 * For a route with path parameters, the patterns of the routes with fewer that its own pattern
 * also matches (`/emails/batch` for `/emails/{id}`): a path one of them matches is theirs, at any
 * method, so `GET /emails/batch` is a 405 of `/emails/batch`, not the email "batch" not found.
 */
function shadowingPatterns(route: AnyRoute, routes: readonly AnyRoute[]): RegExp[] {
  const own = toRegExp(route.path);
  const count = paramCount(route.path);
  const paths = routes.filter((other) => paramCount(other.path) < count && own.test(other.path.replace(/\{\w+\}/g, 'x'))).map((other) => other.path);
  return [...new Set(paths)].map(toRegExp);
}

/** Mounts every route of the table: authenticate, authorize, rate-limit, parse, handle. */
export function mountRoutes(app: Express, routes: readonly AnyRoute[], ctx: GatewayContext, timeouts: HttpTimeouts): void {
  const budget = bodyBudget(routes, ctx);
  for (const route of routes) {
    const limit = route.bodyLimit ?? DEFAULT_BODY_LIMIT;
    const parseJson = jsonBodyReader({
      limit,
      limitBytes: parseSize(limit),
      budget,
      deadlineMs: bodyDeadlineMs(timeouts, parseSize(limit)),
      // Authenticated callers were counted before their body was read; anonymous ones (sign-in,
      // sign-up) are counted here, so stalling a body is not a free attempt.
      onTimeout: route.access.kind === 'public' ? (req) => countStalledLogin(ctx.rateLimits, loginClientKey(req, ctx.config.gatewayTrustProxy)) : undefined,
      // A route without a body still holds a sent one to the limit (DESIGN §4: 1 MB), read and dropped.
      discard: route.body === undefined,
    });
    const shadowing = shadowingPatterns(route, routes);
    app[route.method](toExpressPath(route.path), async (req: Request, res: Response, next: NextFunction) => {
      if (shadowing.some((pattern) => pattern.test(req.path))) return next();
      res.setHeader('Cache-Control', API_CACHE_CONTROL);
      const auth = route.access.kind === 'public' ? PUBLIC : await authorizeAndLimit(ctx, route.access, req, res);
      route.checkHeaders?.(req);
      await parseJson(req, res);
      const params = route.params ? parseInput(route.params, req.params, 'path') : req.params;
      const query = route.query ? parseInput(route.query, req.query, 'query') : {};
      // No body at all reads as `{}`; a JSON `null` stays null, and is refused as not an object.
      const body = route.body ? parseInput(route.body, req.body === undefined ? {} : req.body, 'body', route.nullIsAbsent ? camelizeWithoutNulls : camelize) : undefined;
      const result = await route.handler({ body, query, params, auth, ctx, req, res });
      if (!res.headersSent) res.status(route.success.status).json(result);
    });
  }
}

/**
 * API_MAX_BUFFERED_BYTES must hold the largest body a route takes, or such a body could never
 * be read: a ConfigError otherwise. The gateway checks it before it connects to anything.
 */
export function checkBodyBudget(routes: readonly AnyRoute[], maxBytes: number): void {
  const largest = Math.max(0, ...routes.filter((route) => route.body).map((route) => parseSize(route.bodyLimit ?? DEFAULT_BODY_LIMIT)));
  if (maxBytes < largest) {
    throw new ConfigError(`Invalid API_MAX_BUFFERED_BYTES: it must be at least ${largest}, the largest request body an endpoint takes.`);
  }
}

/** The process's budget of request body bytes (API_MAX_BUFFERED_BYTES), with its gauge. */
function bodyBudget(routes: readonly AnyRoute[], ctx: GatewayContext): ByteBudget {
  checkBodyBudget(routes, ctx.config.apiMaxBufferedBytes);
  const budget = new ByteBudget(ctx.config.apiMaxBufferedBytes);
  new Gauge({
    name: 'mailroom_http_buffered_bytes',
    help: 'Request body bytes held (being read, or parsed until the answer); at API_MAX_BUFFERED_BYTES a new body gets 503.',
    registers: [ctx.metrics.registry],
    collect() {
      this.set(budget.inUse);
    },
  });
  return budget;
}

/** The longest of the routes' body deadlines. */
export function longestBodyDeadlineMs(routes: readonly AnyRoute[], timeouts: HttpTimeouts): number {
  const limits = routes.filter((route) => route.body).map((route) => parseSize(route.bodyLimit ?? DEFAULT_BODY_LIMIT));
  return bodyDeadlineMs(timeouts, Math.max(0, ...limits));
}

/** A path served outside the route table (the dashboard's pages), for the 405's `Allow`. */
export interface OtherPath {
  regex: RegExp;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
}

/**
 * After the routes: a known path with another method is 405 (with Allow), anything else 404.
 * A path is the most specific pattern's that matches it (the fewest parameters): `/emails/batch`
 * allows POST, not the GET of `/emails/{id}`.
 */
export function unmatchedRoute(routes: readonly AnyRoute[], others: readonly OtherPath[] = []): RequestHandler {
  const patterns = [
    ...routes.map((route) => ({ regex: toRegExp(route.path), method: route.method.toUpperCase(), params: paramCount(route.path) })),
    ...others.map((other) => ({ ...other, params: 0 })),
  ];
  return (req, res) => {
    const matching = patterns.filter((p) => p.regex.test(req.path));
    const fewest = Math.min(...matching.map((p) => p.params));
    const allowed = [...new Set(matching.filter((p) => p.params === fewest).map((p) => p.method))];
    if (allowed.includes('GET')) allowed.push('HEAD');
    // Nothing there at all, or a method the path takes that found nothing (a dashboard asset that does not exist).
    if (allowed.length === 0 || allowed.includes(req.method)) throw new MailroomError('not_found', `No endpoint ${req.method} ${req.path}.`);
    res.setHeader('Allow', allowed.join(', '));
    throw new MailroomError('method_not_allowed', `${req.method} is not allowed on ${req.path}; use ${allowed.join(', ')}.`);
  };
}

/**
 * Authenticates, authorizes and counts the request against the rate limit. Every authenticated
 * request is counted, refused ones included, so every answer to one carries `ratelimit-*`: an
 * authorized request counts against its project; a refused one against what the credentials
 * alone prove (the token's project, or the session's user), never a project it merely named.
 */
async function authorizeAndLimit(ctx: GatewayContext, access: Access, req: Request, res: Response): Promise<AuthContext> {
  const principal = await authenticate(req, ctx.apiTokens, ctx.sessions);
  let auth: AuthContext;
  try {
    auth = await authorize(ctx.db, access, principal, req);
  } catch (err) {
    await limitRate(ctx, { principal, projectId: principal.kind === 'token' ? principal.projectId : null, role: null }, res);
    throw err;
  }
  await limitRate(ctx, auth, res);
  return auth;
}

async function limitRate(ctx: GatewayContext, auth: AuthContext, res: Response): Promise<void> {
  const limiter = ctx.rateLimits.perProject;
  if (!limiter || !auth.principal) return;
  const key = auth.projectId ? `project:${auth.projectId}` : auth.principal.kind === 'session' ? `user:${auth.principal.userId}` : null;
  if (key) await consumeRateLimit(limiter, key, res);
}

