import { createDeliveryOutcomeCounter, createReconcilerCounter, type Logger, registerBacklogMetrics } from '@mailroom/core';
import { type Pool, readBacklog } from '@mailroom/db';
import { Counter, type Registry } from 'prom-client';
import type { ProcessingSummary } from './process-received';

export interface ProcessingMetrics {
  /** Counts one processing run's stored and failed messages. */
  countProcessed(summary: Pick<ProcessingSummary, 'stored' | 'failed'>): void;
  /** Counts an outcome a report (DSN, complaint) recorded on a sent recipient. */
  countFeedback(outcome: string): void;
  /** The reconciler re-enqueued this many unprocessed messages. */
  countRecovered(count: number): void;
}

/**
 * The metrics of inbound processing (after the 250), beside the MX's own on the service's
 * registry: messages parsed, outcomes read from reports (`mailroom_deliveries_total` with
 * `source="feedback"`), the reconciler's finds, and the `inbound` queue's backlog (PostgreSQL).
 */
export function createProcessingMetrics(registry: Registry, options: { pool: Pool; logger: Logger }): ProcessingMetrics {
  const processed = new Counter({
    name: 'mailroom_inbound_processed_total',
    help: 'Received messages parsed, authenticated and stored (stored), or whose processing failed this time (failed).',
    labelNames: ['result'],
    registers: [registry],
  });
  // Both series from the start at 0, so rate() sees the first message of each (prometheus-peer.test.ts).
  for (const result of ['stored', 'failed']) processed.inc({ result }, 0);
  const outcomes = createDeliveryOutcomeCounter(registry, { feedback: ['bounced', 'deferred', 'complained'] });
  const countRecovered = createReconcilerCounter(registry, 'inbound');
  registerBacklogMetrics(registry, { queues: ['inbound'], read: () => readBacklog(options.pool, 'inbound'), logger: options.logger });
  return {
    countProcessed(summary) {
      if (summary.stored.length > 0) processed.inc({ result: 'stored' }, summary.stored.length);
      if (summary.failed.length > 0) processed.inc({ result: 'failed' }, summary.failed.length);
    },
    countFeedback(outcome) {
      outcomes.inc({ outcome, source: 'feedback' });
    },
    countRecovered,
  };
}
