import type { Webhook } from '@mailroom/client';

/** An event type a webhook can subscribe to (`WebhookEventType` in the OpenAPI document). */
export type WebhookEventType = Webhook['events'][number];

/** Every type, in the contract's order (DESIGN §5), for the subscription checkboxes. */
export const WEBHOOK_EVENT_TYPES = [
  'email.sent',
  'email.delivered',
  'email.delivery_delayed',
  'email.bounced',
  'email.complained',
  'email.failed',
  'email.suppressed',
  'email.opened',
  'email.clicked',
  'email.received',
  'domain.updated',
] as const satisfies readonly WebhookEventType[];

// Fails to compile when the API gains a type this list lacks.
type Missing = Exclude<WebhookEventType, (typeof WEBHOOK_EVENT_TYPES)[number]>;
export const EVERY_TYPE_LISTED: [Missing] extends [never] ? true : never = true;

/** Types an endpoint scoped to a route may subscribe to (the API answers 422 for the others). */
export const ROUTE_SCOPED_TYPES: readonly WebhookEventType[] = ['email.received'];
