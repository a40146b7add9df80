import { Counter, type Registry } from 'prom-client';

/** Where an outcome came from: a delivery attempt of the sender, or a report received later (DSN, complaint). */
export type OutcomeSource = 'attempt' | 'feedback';

/**
 * `mailroom_deliveries_total{outcome, source}`: recipient outcomes recorded through
 * `recordOutcomes`, counted after their commit. The sender counts its attempts (and the
 * sandbox's simulated complaints, as feedback); the MX's processing counts bounces, delays and
 * complaints read from reports. Sum over services for rates.
 */
export function createDeliveryOutcomeCounter(registry: Registry): Counter<'outcome' | 'source'> {
  return new Counter({
    name: 'mailroom_deliveries_total',
    help: 'Recipient outcomes recorded (delivered, deferred, bounced, failed, suppressed, complained), by source (attempt or feedback).',
    labelNames: ['outcome', 'source'],
    registers: [registry],
  });
}

/** What a reconciler found lost and handed to its queue again; the `kind` label. */
export type RecoveredKind = 'send' | 'webhook-deliveries' | 'inbound';

/** `mailroom_reconciler_recovered_total{kind}`: work a reconciler found in PostgreSQL and enqueued again. */
export function createReconcilerCounter(registry: Registry): Counter<'kind'> {
  return new Counter({
    name: 'mailroom_reconciler_recovered_total',
    help: 'Work a reconciler found due in PostgreSQL but not in progress, and enqueued again, by kind.',
    labelNames: ['kind'],
    registers: [registry],
  });
}
