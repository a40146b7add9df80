import express, { type Express } from 'express';
import type { GatewayContext } from './context';
import { errorHandler } from './http/error-handler';
import { observeRequests } from './http/observe';
import { mountRoutes, unmatchedRoute } from './http/router';
import { allRoutes } from './routes';

/** The gateway's express application. Building it opens nothing and listens on nothing. */
export function buildApp(ctx: GatewayContext): Express {
  const { routes } = allRoutes(ctx.config.publicApiUrl);
  const app = express();
  app.disable('x-powered-by');
  // Answers are per-caller and mostly to writes: hashing every body for an ETag buys nothing.
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(observeRequests(ctx.logger.child({ component: 'http' }), ctx.metrics));
  mountRoutes(app, routes, ctx);
  app.use(unmatchedRoute(routes));
  app.use(errorHandler(ctx.logger.child({ component: 'errors' })));
  return app;
}
