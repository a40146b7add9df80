import type { Schema } from '../operation-types.ts';

/** The event types an endpoint subscribes to, from the OpenAPI document. */
export type WebhookEventType = Schema<'WebhookEventType'>;

/** An event's one JSON form, in webhook bodies and email timelines (DESIGN §5). */
interface EventOf<Type extends string, Data> {
  /** `evt_…`: the same on every retry and replay, so receivers can deduplicate. */
  id: string;
  type: Type;
  /** ISO 8601. */
  created_at: string;
  data: Data;
}

export interface SmtpReply {
  code: number | null;
  enhanced_code: string | null;
  message: string;
}

/** Where the bounce or complaint report an event comes from can be read. */
export interface ReportLink {
  received_email_id: string;
  raw_url: string;
}

/** What every event about sent mail says: one recipient of one email. */
export interface EmailEventData {
  email_id: string;
  from: string;
  to: string[];
  subject: string;
  tags: { name: string; value: string }[];
  recipient: string;
  /** On outcomes from a report received by mail (a DSN, a complaint). */
  report?: ReportLink;
}

/** A delivery attempt's outcome: its number (1, 2, …) and the SMTP reply. */
export interface AttemptEventData extends EmailEventData {
  attempt: number;
  smtp: SmtpReply;
}

export interface BouncedEventData extends AttemptEventData {
  bounce: { type: 'hard' | 'soft' | 'policy'; code: string | null; message: string };
}

export interface OpenedEventData extends EmailEventData {
  /** `is_bot`: a privacy proxy or prefetcher, not a person; recorded, never dropped. */
  open: { ip_address: string | null; user_agent: string | null; is_bot: boolean };
}

export interface ClickedEventData extends EmailEventData {
  click: { link: string; ip_address: string | null; user_agent: string | null; is_bot: boolean };
}

/** Compact: the whole message is at `GET /emails/received/{email_id}`. */
export interface ReceivedEventData {
  email_id: string;
  from: string | null;
  to: string[];
  subject: string | null;
  route_id: string;
  created_at: string;
}

export type EmailSentEvent = EventOf<'email.sent', EmailEventData & { attempt: number }>;
export type EmailDeliveredEvent = EventOf<'email.delivered', AttemptEventData>;
export type EmailDeliveryDelayedEvent = EventOf<'email.delivery_delayed', AttemptEventData>;
export type EmailBouncedEvent = EventOf<'email.bounced', BouncedEventData>;
export type EmailComplainedEvent = EventOf<'email.complained', EmailEventData>;
export type EmailFailedEvent = EventOf<'email.failed', AttemptEventData>;
export type EmailSuppressedEvent = EventOf<'email.suppressed', EmailEventData>;
export type EmailOpenedEvent = EventOf<'email.opened', OpenedEventData>;
export type EmailClickedEvent = EventOf<'email.clicked', ClickedEventData>;
export type EmailReceivedEvent = EventOf<'email.received', ReceivedEventData>;
/** A sending domain's verification changed; `data` is the domain. */
export type DomainUpdatedEvent = EventOf<'domain.updated', Record<string, unknown>>;
/** Sent only by `POST /webhooks/{id}/test`. */
export type WebhookTestEvent = EventOf<'webhook.test', Record<string, unknown>>;

/** Any event a webhook endpoint may receive: narrow it with `switch (event.type)`. */
export type WebhookEvent =
  | EmailSentEvent
  | EmailDeliveredEvent
  | EmailDeliveryDelayedEvent
  | EmailBouncedEvent
  | EmailComplainedEvent
  | EmailFailedEvent
  | EmailSuppressedEvent
  | EmailOpenedEvent
  | EmailClickedEvent
  | EmailReceivedEvent
  | DomainUpdatedEvent
  | WebhookTestEvent;

// Compile-time check that the union covers exactly the document's event types and webhook.test:
// a type added to WebhookEventType without an event here fails to build.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
export type CoversEveryEventType = Assert<Same<WebhookEvent['type'], WebhookEventType | 'webhook.test'>>;
