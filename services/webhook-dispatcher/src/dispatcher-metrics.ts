import { createReconcilerCounter, createServiceRegistry, type Logger, registerBacklogMetrics } from '@mailroom/core';
import { type AttemptRecord, type Pool, readBacklog } from '@mailroom/db';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { ReconcileResult } from './reconciler';

/** The result class of one POST: the `result` label. `error`: no response (timeout, connection, refused address). */
export type AttemptResult = 'success' | 'http_3xx' | 'http_4xx' | 'http_410' | 'http_429' | 'http_5xx' | 'error';

export interface DispatcherMetrics {
  registry: Registry;
  /** Counts one attempt once it is recorded. */
  countAttempt(record: AttemptRecord): void;
  /** Counts what a reconcile found and did. */
  countReconcile(result: ReconcileResult): void;
}

/**
 * The dispatcher's Prometheus metrics on its ops server: process metrics, attempts by result
 * and their latency, endpoints disabled (410 or five days failing), the reconciler's finds and
 * the `webhook-deliveries` queue's backlog (PostgreSQL).
 */
export function createDispatcherMetrics(options: { pool: Pool; logger: Logger }): DispatcherMetrics {
  const registry = createServiceRegistry('webhook-dispatcher');
  const registers = [registry];
  const attempts = new Counter({
    name: 'mailroom_webhook_attempts_total',
    help: 'Webhook POSTs made by the dispatcher and recorded, by result and trigger (scheduled or manual).',
    labelNames: ['result', 'trigger'],
    registers,
  });
  const duration = new Histogram({
    name: 'mailroom_webhook_attempt_duration_seconds',
    help: 'Webhook POST duration until the answer (or the timeout), by outcome: success or failure.',
    labelNames: ['outcome'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
    registers,
  });
  const disabled = new Counter({
    name: 'mailroom_webhook_endpoints_disabled_total',
    help: 'Webhook endpoints disabled by the dispatcher, by reason: gone (an answer 410) or failing (five days without a success).',
    labelNames: ['reason'],
    registers,
  });
  // Both reasons exist from the start at 0, so increase() sees the first endpoint disabled.
  for (const reason of ['gone', 'failing']) disabled.inc({ reason }, 0);
  const countRecovered = createReconcilerCounter(registry, 'webhook-deliveries');
  registerBacklogMetrics(registry, { queues: ['webhook-deliveries'], read: () => readBacklog(options.pool, 'webhook-deliveries'), logger: options.logger });
  return {
    registry,
    countAttempt(record) {
      attempts.inc({ result: attemptResult(record), trigger: record.trigger });
      duration.observe({ outcome: record.success ? 'success' : 'failure' }, record.durationMs / 1000);
      if (record.gone) disabled.inc({ reason: 'gone' });
    },
    countReconcile(result) {
      countRecovered(result.stranded);
      if (result.disabled > 0) disabled.inc({ reason: 'failing' }, result.disabled);
    },
  };
}

function attemptResult(record: AttemptRecord): AttemptResult {
  if (record.success) return 'success';
  const status = record.responseStatus;
  if (status === null) return 'error';
  if (status === 410 || status === 429) return `http_${status}`;
  if (status >= 500) return 'http_5xx';
  if (status >= 400) return 'http_4xx';
  return 'http_3xx';
}
