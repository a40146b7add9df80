import type { DeliveryStatus } from './delivery-status';

// DESIGN §4: a recipient only moves forward. queued → sent → delivery_delayed (any number of
// times) → delivered | bounced | failed; delivered → bounced (a late DSN); delivered or bounced
// → complained. `suppressed` and `canceled` are set before sending; a recipient still being
// retried also becomes `suppressed` when its address was suppressed since (it is not attempted again).
const BEFORE_SENDING: readonly DeliveryStatus[] = ['sent', 'delivery_delayed', 'delivered', 'bounced', 'failed', 'suppressed', 'canceled'];
const IN_FLIGHT: readonly DeliveryStatus[] = ['delivery_delayed', 'delivered', 'bounced', 'failed', 'suppressed'];

const NEXT: Record<DeliveryStatus, ReadonlySet<DeliveryStatus>> = {
  scheduled: new Set(['queued', ...BEFORE_SENDING]),
  queued: new Set(BEFORE_SENDING),
  sent: new Set(IN_FLIGHT),
  delivery_delayed: new Set(IN_FLIGHT),
  delivered: new Set(['bounced', 'complained']),
  bounced: new Set(['complained']),
  complained: new Set(),
  failed: new Set(),
  suppressed: new Set(),
  canceled: new Set(),
};

/** Whether a recipient in status `from` may move to `to` (DESIGN §4); staying delayed is a move. */
export function canTransition(from: DeliveryStatus, to: DeliveryStatus): boolean {
  return NEXT[from].has(to);
}
