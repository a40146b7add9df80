import { checkMetricsToken, checkReadiness, MailroomError } from '@mailroom/core';
import { z } from 'zod';
import type { GatewayContext } from '../../context';
import { defineRoute } from '../../http/route';

/** PostgreSQL and Redis answer, and the process is not shutting down. */
function readiness(ctx: GatewayContext) {
  return checkReadiness({ postgres: () => ctx.db.$queryRaw`SELECT 1`, redis: () => ctx.redis.ping(), isShuttingDown: ctx.isShuttingDown });
}

const checksSchema = z.object({ postgres: z.enum(['ok', 'unavailable']), redis: z.enum(['ok', 'unavailable']), shuttingDown: z.boolean() });

export const healthRoutes = [
  defineRoute({
    method: 'get',
    path: '/healthz',
    operationId: 'health',
    summary: 'Liveness: the process answers',
    tag: 'Operations',
    access: { kind: 'public' },
    success: { status: 200, description: 'Alive.', schema: z.object({ status: z.literal('ok') }) },
    errors: [],
    async handler() {
      return { status: 'ok' };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/readyz',
    operationId: 'ready',
    summary: 'Readiness: PostgreSQL and Redis reachable, not shutting down',
    description: 'Answers 503 `service_unavailable` with the same `checks` when not ready.',
    tag: 'Operations',
    access: { kind: 'public' },
    success: { status: 200, description: 'Ready.', schema: z.object({ status: z.literal('ready'), checks: checksSchema }) },
    errors: [],
    async handler({ ctx, res }) {
      const { ready, checks } = await readiness(ctx);
      if (ready) return { status: 'ready', checks };
      const body = new MailroomError('service_unavailable', 'Not ready: a dependency is unavailable or the process is shutting down.').toBody();
      res.status(503).json({ ...body, checks });
      return undefined;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/metrics',
    operationId: 'metrics',
    summary: 'Prometheus metrics',
    description: 'When METRICS_TOKEN is set, send it as `Authorization: Bearer <METRICS_TOKEN>`.',
    tag: 'Operations',
    access: { kind: 'public' },
    success: { status: 200, description: 'Prometheus text exposition format.', schema: z.string(), contentType: 'text/plain' },
    errors: ['missing_api_key', 'invalid_api_key'],
    async handler({ ctx, req, res }) {
      checkMetricsToken(req.get('authorization'), ctx.config.metricsToken);
      res.setHeader('Content-Type', ctx.metrics.registry.contentType);
      res.status(200).send(await ctx.metrics.registry.metrics());
      return undefined;
    },
  }),
];
