import { createDeliveryOutcomeCounter, createReconcilerCounter, createServiceRegistry, type Logger, registerBacklogMetrics } from '@mailroom/core';
import { type OutcomeRecord, type Pool, readBacklog } from '@mailroom/db';
import { Histogram, type Registry } from 'prom-client';
import type { DeliveryOutcome } from './delivery';

/** The result class of one SMTP transaction: the `result` label (a 4xx is `deferred`, no reply at all `error`). */
export type TransactionResult = 'delivered' | 'bounced' | 'deferred' | 'error';

export interface SenderMetrics {
  registry: Registry;
  /** Counts what was just committed through `recordOutcomes`. */
  countOutcomes(records: readonly OutcomeRecord[]): void;
  /** Observes one SMTP transaction (every next hop tried for one recipient, DNS included). */
  observeTransaction(outcome: DeliveryOutcome, seconds: number): void;
  /** The reconciler re-enqueued this many due emails. */
  countRecovered(count: number): void;
}

/**
 * The sender's Prometheus metrics on its ops server: process metrics, delivery outcomes, SMTP
 * transaction latency, the reconciler's finds and the `send` queue's backlog (PostgreSQL).
 */
export function createSenderMetrics(options: { pool: Pool; logger: Logger }): SenderMetrics {
  const registry = createServiceRegistry('sender');
  const outcomes = createDeliveryOutcomeCounter(registry, {
    attempt: ['delivered', 'deferred', 'bounced', 'failed', 'suppressed'],
    // The sandbox's complained@ files its complaint as feedback would.
    feedback: ['complained'],
  });
  const countRecovered = createReconcilerCounter(registry, 'send');
  const transactions = new Histogram({
    name: 'mailroom_smtp_transaction_duration_seconds',
    help: 'Outbound SMTP transactions (one recipient, every next hop tried), by result: delivered, bounced (5xx), deferred (4xx), error (no reply: DNS, connection, timeout).',
    labelNames: ['result'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [registry],
  });
  registerBacklogMetrics(registry, { queues: ['send'], read: () => readBacklog(options.pool, 'send'), logger: options.logger });
  return {
    registry,
    countOutcomes(records) {
      for (const r of records) outcomes.inc({ outcome: r.outcome.kind, source: 'startedAt' in r ? 'attempt' : 'feedback' });
    },
    observeTransaction(outcome, seconds) {
      transactions.observe({ result: transactionResult(outcome) }, seconds);
    },
    countRecovered,
  };
}

function transactionResult(outcome: DeliveryOutcome): TransactionResult {
  if (outcome.kind !== 'deferred') return outcome.kind;
  return outcome.smtp?.code ? 'deferred' : 'error';
}
