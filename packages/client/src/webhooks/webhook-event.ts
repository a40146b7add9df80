import type { webhooks } from '../generated/openapi.ts';
import type { RequestBody, Schema } from '../operation-types.ts';

/** The event types an endpoint subscribes to, from the OpenAPI document. */
export type WebhookEventType = Schema<'WebhookEventType'>;

/**
 * Any event a webhook endpoint may receive, as the document's top-level `webhooks` describe each
 * delivery's body: a union discriminated by `type`, so `switch (event.type)` narrows `data`.
 */
export type WebhookEvent = { [Type in keyof webhooks]: RequestBody<webhooks[Type]['post']> }[keyof webhooks];

/** The event of one type: `WebhookEventOf<'email.bounced'>`. */
export type WebhookEventOf<Type extends WebhookEvent['type']> = Extract<WebhookEvent, { type: Type }>;

// Compile-time check that the union covers exactly the document's event types and webhook.test:
// a type added to WebhookEventType without its delivery described fails to build.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
export type CoversEveryEventType = Assert<Same<WebhookEvent['type'], WebhookEventType | 'webhook.test'>>;
