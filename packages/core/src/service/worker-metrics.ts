import { Counter, type Registry } from 'prom-client';

/** Where an outcome came from: a delivery attempt of the sender, or a report received later (DSN, complaint). */
export type OutcomeSource = 'attempt' | 'feedback';

/**
 * `mailroom_deliveries_total{outcome, source}`: recipient outcomes recorded through
 * `recordOutcomes`, counted after their commit. The sender counts its attempts (and the
 * sandbox's simulated complaints, as feedback); the MX's processing counts bounces, delays and
 * complaints read from reports. Sum over services for rates.
 */
export function createDeliveryOutcomeCounter(registry: Registry, expected: Partial<Record<OutcomeSource, readonly string[]>>): Counter<'outcome' | 'source'> {
  const counter = new Counter({
    name: 'mailroom_deliveries_total',
    help: 'Recipient outcomes recorded (delivered, deferred, bounced, failed, suppressed, complained), by source (attempt or feedback).',
    labelNames: ['outcome', 'source'],
    registers: [registry],
  });
  // Series exist from the start at 0, so rate() and increase() see the first outcome of each kind.
  for (const [source, outcomes] of Object.entries(expected)) for (const outcome of outcomes ?? []) counter.inc({ outcome, source }, 0);
  return counter;
}

/** What a reconciler found lost and handed to its queue again; the `kind` label. */
export type RecoveredKind = 'send' | 'webhook-deliveries' | 'inbound';

/**
 * `mailroom_reconciler_recovered_total{kind}`: work a reconciler found in PostgreSQL and
 * enqueued again; returns a function counting for this service's `kind` (its series starts at 0).
 */
export function createReconcilerCounter(registry: Registry, kind: RecoveredKind): (count: number) => void {
  const counter = new Counter({
    name: 'mailroom_reconciler_recovered_total',
    help: 'Work a reconciler found due in PostgreSQL but not in progress, and enqueued again, by kind.',
    labelNames: ['kind'],
    registers: [registry],
  });
  const child = counter.labels(kind);
  child.inc(0);
  return (count) => {
    if (count > 0) child.inc(count);
  };
}
