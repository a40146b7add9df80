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
  'domain.updated',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The types an endpoint scoped to a route (`routeId`) may subscribe to: events about mail that arrived through it. */
export const ROUTE_SCOPED_EVENT_TYPES: readonly WebhookEventType[] = ['email.received'];

/** Sent only by `POST /webhooks/{id}/test`; never subscribed to. */
export const TEST_EVENT_TYPE = 'webhook.test' as const;

/** The SMTP reply an outcome event carries. */
export interface SmtpReplyData {
  code: number | null;
  enhanced_code: string | null;
  message: string;
}

/** `data` of an event about sent mail: one recipient of one email (DESIGN §5). */
export interface EmailEventData {
  email_id: string;
  from: string;
  to: string[];
  subject: string;
  tags: { name: string; value: string }[];
  recipient: string;
  attempt?: number;
  smtp?: SmtpReplyData;
  bounce?: { type: 'hard' | 'soft' | 'policy'; code: string | null; message: string };
  /** `is_bot`: a privacy proxy, prefetcher or scanner rather than a person (recorded all the same). */
  open?: { ip_address: string | null; user_agent: string | null; is_bot: boolean };
  click?: { link: string; ip_address: string | null; user_agent: string | null; is_bot: boolean };
  /** On outcomes from a report received by mail (a DSN, a complaint): the stored report. */
  report?: ReportLinkData;
}

/** Where the received report an event comes from can be read: `GET /emails/received/{id}/raw`. */
export interface ReportLinkData {
  received_email_id: string;
  raw_url: string;
}

/** One event, in the single form used for the timeline and for webhook bodies. */
export interface EventBody<Data = EmailEventData> {
  id: string;
  type: WebhookEventType | typeof TEST_EVENT_TYPE;
  created_at: string;
  data: Data;
}
