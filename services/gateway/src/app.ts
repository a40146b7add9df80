import express, { type Express } from 'express';
import type { GatewayContext } from './context';
import { DASHBOARD_PATHS, dashboardRouter } from './features/dashboard/serve-dashboard';
import { errorHandler } from './http/error-handler';
import { observeRequests } from './http/observe';
import { assignRequestId } from './http/request-id';
import { requireHostHeader } from './http/request-framing';
import { longestBodyDeadlineMs, mountRoutes, unmatchedRoute } from './http/router';
import { DEFAULT_TIMEOUTS, type HttpTimeouts } from './http/timeouts';
import { allRoutes } from './routes';

/**
 * The gateway's express application. Building it opens nothing and listens on nothing.
 * `longestBodyMs` is the deadline of the route that may take longest to receive its body.
 */
export function buildApp(ctx: GatewayContext, timeouts: HttpTimeouts = DEFAULT_TIMEOUTS): { app: Express; longestBodyMs: number } {
  const { routes } = allRoutes(ctx.config.publicApiUrl);
  const app = express();
  app.disable('x-powered-by');
  // Answers are per-caller and mostly to writes: hashing every body for an ETag buys nothing.
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(assignRequestId());
  app.use(observeRequests(ctx.logger.child({ component: 'http' }), ctx.metrics));
  app.use(requireHostHeader());
  mountRoutes(app, routes, ctx, timeouts);
  app.use(dashboardRouter());
  app.use(unmatchedRoute(routes, DASHBOARD_PATHS));
  app.use(errorHandler(ctx.logger.child({ component: 'errors' })));
  return { app, longestBodyMs: longestBodyDeadlineMs(routes, timeouts) };
}
