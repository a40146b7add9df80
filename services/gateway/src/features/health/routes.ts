import { checkMetricsToken, checkReadiness, MailroomError, NOT_READY } from '@mailroom/core';
import { z } from 'zod';
import type { GatewayContext } from '../../context';
import { defineRoute } from '../../http/route';

/** PostgreSQL and Redis answer, the database has the code's migrations, and the process is not shutting down. */
function readiness(ctx: GatewayContext) {
  return checkReadiness({
    postgres: () => ctx.db.$queryRaw`SELECT 1`,
    redis: () => ctx.redis.ping(),
    migrations: () => ctx.migrations.check(),
    isShuttingDown: ctx.isShuttingDown,
  });
}

const checksSchema = z.object({
  postgres: z.enum(['ok', 'unavailable']),
  redis: z.enum(['ok', 'unavailable']),
  migrations: z.enum(['ok', 'behind', 'unavailable']).meta({
    description: '`behind`: the database lacks the newest migration this version expects (apply migrations); a database with newer ones than that is `ok`.',
  }),
  shuttingDown: z.boolean(),
});

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
    summary: 'Readiness: PostgreSQL and Redis reachable, migrations applied, not shutting down',
    description: 'Answers 503 `service_unavailable` with the same `checks` when not ready.',
    tag: 'Operations',
    access: { kind: 'public' },
    success: { status: 200, description: 'Ready.', schema: z.object({ status: z.literal('ready'), checks: checksSchema }) },
    errors: [],
    async handler({ ctx, res }) {
      const { ready, checks } = await readiness(ctx);
      if (ready) return { status: 'ready', checks };
      const body = new MailroomError('service_unavailable', NOT_READY).toBody();
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
