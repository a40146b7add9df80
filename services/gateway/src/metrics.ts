import { createServiceRegistry } from '@mailroom/core';
import { Counter, Histogram, type Registry } from 'prom-client';

/** Prometheus metrics of one gateway. A registry per instance keeps test instances apart. */
export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route'>;
}

export function createMetrics(): Metrics {
  const registry = createServiceRegistry('gateway');
  return {
    registry,
    httpRequests: new Counter({
      name: 'mailroom_http_requests_total',
      help: 'HTTP requests answered, by route template and status.',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'mailroom_http_request_duration_seconds',
      help: 'HTTP request duration in seconds, by route template.',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
  };
}
