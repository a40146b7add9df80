/** Event types a webhook endpoint may subscribe to (WebhookEventType, DESIGN §5). */
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
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Sent only by `POST /webhooks/{id}/test`; never subscribed to. */
export const TEST_EVENT_TYPE = 'webhook.test' as const;
