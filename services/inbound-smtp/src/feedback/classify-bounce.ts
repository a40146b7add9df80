import type { DsnAction } from './report';

export interface BounceClass {
  event: 'email.bounced' | 'email.delivery_delayed' | null;
  bounceType: 'hard' | 'soft' | 'policy' | null;
}

/**
 * What one DSN recipient means (DESIGN §7 "Feedback"):
 * - `Action: delayed` → `email.delivery_delayed` (even with a 5.x.x status: the MTA says it retries).
 * - `Action: delivered`, `relayed`, `expanded` → nothing.
 * - `Action: failed`, or a 5.x.x status → `email.bounced`: hard for 5.1.x, policy for 5.7.x, soft
 *   otherwise — a 4.x.x that failed (an expired message, 4.4.7) and a failure with no code are soft.
 */
export function classifyBounce(status: string | null, action: DsnAction): BounceClass {
  if (action === 'delayed') return { event: 'email.delivery_delayed', bounceType: null };
  // The parsers infer a missing or unknown Action from the status (5.x.x → failed), so an
  // explicit delivered/relayed/expanded wins over a contradictory code.
  if (action !== 'failed') return { event: null, bounceType: null };
  const permanent = status?.startsWith('5.') ?? false;
  if (permanent && /^5\.1\.\d+$/.test(status ?? '')) return { event: 'email.bounced', bounceType: 'hard' };
  if (permanent && /^5\.7\.\d+$/.test(status ?? '')) return { event: 'email.bounced', bounceType: 'policy' };
  return { event: 'email.bounced', bounceType: 'soft' };
}
