/** Delivery status of a recipient and of an email (DESIGN §4 "Email"). */
export const DELIVERY_STATUSES = [
  'scheduled',
  'queued',
  'sent',
  'delivery_delayed',
  'delivered',
  'bounced',
  'complained',
  'failed',
  'suppressed',
  'canceled',
] as const;

export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Statuses after which no further attempt is made. A late DSN or complaint can still follow `delivered`. */
export const FINAL_STATUSES: ReadonlySet<DeliveryStatus> = new Set([
  'delivered',
  'bounced',
  'complained',
  'failed',
  'suppressed',
  'canceled',
]);

const isFinal = (status: DeliveryStatus) => FINAL_STATUSES.has(status);

/** Statuses of a recipient the sender still attempts (when due). */
export const ATTEMPTABLE_STATUSES: readonly DeliveryStatus[] = ['queued', 'sent', 'delivery_delayed'];

/**
 * The email's status from its recipients': while any is unfinished, `delivery_delayed` if any
 * is delayed, else `sent` if any has begun, else `queued` (or `scheduled`); once all are final,
 * `complained` if any complained, else their common status if they share one, else `delivered`
 * if any was delivered, else the first of `bounced`, `failed`, `suppressed`.
 */
export function summarizeEmailStatus(recipients: readonly DeliveryStatus[]): DeliveryStatus {
  const has = (status: DeliveryStatus) => recipients.includes(status);
  if (recipients.some((s) => !isFinal(s))) {
    if (has('delivery_delayed')) return 'delivery_delayed';
    if (has('sent')) return 'sent';
    return has('queued') ? 'queued' : 'scheduled';
  }
  if (has('complained')) return 'complained';
  const first = recipients[0];
  if (first && recipients.every((s) => s === first)) return first;
  if (has('delivered')) return 'delivered';
  for (const status of ['bounced', 'failed', 'suppressed'] as const) if (has(status)) return status;
  return 'canceled';
}
