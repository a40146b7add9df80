import { TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES, type WebhookEventType } from '@mailroom/core';
import { z } from 'zod';
import { timestamp } from '../schemas/common';
import { domainSchema } from '../features/domains/domain-schema';

// The `data` of each event type (DESIGN §5, packages/core/src/events.ts), snake_case as delivered.

const smtpReply = z
  .object({
    code: z.number().int().nullable().meta({ example: 250 }),
    enhanced_code: z.string().nullable().meta({ example: '2.0.0' }),
    message: z.string().meta({ example: 'OK queued as 4F2A1' }),
  })
  .meta({ id: 'SmtpReply', description: "The receiving server's reply, or why there was none (code null)." });

const reportLink = z
  .object({
    received_email_id: z.string().meta({ example: 'inb_01KAQ8D1E2F3G4H5J6K7M8N9P0' }),
    raw_url: z.string().meta({ description: 'GET it with the API key to read the report as received.' }),
  })
  .meta({ id: 'ReportLink', description: 'On outcomes that came from a report received by mail (a DSN, a complaint).' });

const emailBase = {
  email_id: z.string().meta({ example: 'em_01KAQ4B2C3D4E5F6G7H8J9K0MN' }),
  from: z.string().meta({ example: 'Acme <hello@acme.example>' }),
  to: z.array(z.string()),
  subject: z.string(),
  tags: z.array(z.object({ name: z.string(), value: z.string() })),
  recipient: z.string().meta({ description: 'The one recipient this event is about.', example: 'ada@example.com' }),
};

const attempt = z.number().int().meta({ description: 'The delivery attempt this outcome is from, 1 for the first.' });
const isBot = z.boolean().meta({ description: 'A privacy proxy, prefetcher or link scanner rather than a person; such events are recorded, never dropped.' });

const emailData = (id: string, extra: z.ZodRawShape) => z.object({ ...emailBase, ...extra }).meta({ id });

const DATA: Record<WebhookEventType | typeof TEST_EVENT_TYPE, z.ZodType> = {
  'email.sent': emailData('EmailSentData', { attempt }),
  'email.delivered': emailData('EmailDeliveredData', { attempt, smtp: smtpReply }),
  'email.delivery_delayed': emailData('EmailDeliveryDelayedData', { attempt, smtp: smtpReply, report: reportLink.optional() }),
  'email.bounced': emailData('EmailBouncedData', {
    attempt: attempt.optional(),
    smtp: smtpReply.optional(),
    bounce: z.object({
      type: z.enum(['hard', 'soft', 'policy']).meta({ description: 'hard for 5.1.x (which suppresses the address, except 5.1.7 and 5.1.8, about the sender), policy for 5.7.x, soft otherwise; the bounces Mailroom decides itself (a message that cannot be built or carried, a domain that takes no mail) are hard.' }),
      code: z.string().nullable().meta({ description: 'The enhanced status code; null when the report could not be read.', example: '5.1.1' }),
      message: z.string(),
    }),
    report: reportLink.optional(),
  }),
  'email.complained': emailData('EmailComplainedData', { report: reportLink.optional() }),
  'email.failed': emailData('EmailFailedData', { attempt, smtp: smtpReply }),
  'email.suppressed': emailData('EmailSuppressedData', {}),
  'email.opened': emailData('EmailOpenedData', {
    open: z.object({ ip_address: z.string().nullable(), user_agent: z.string().nullable(), is_bot: isBot }),
  }),
  'email.clicked': emailData('EmailClickedData', {
    click: z.object({ link: z.string().meta({ description: 'The original URL.' }), ip_address: z.string().nullable(), user_agent: z.string().nullable(), is_bot: isBot }),
  }),
  'email.received': z
    .object({
      email_id: z.string().meta({ description: 'GET /emails/received/{email_id} for the whole message.', example: 'inb_01KAQ8D1E2F3G4H5J6K7M8N9P0' }),
      from: z.string().nullable().meta({ description: 'The From address, else the envelope sender; null for the null sender.' }),
      to: z.array(z.string()).meta({ description: "This project's envelope recipients." }),
      subject: z.string().nullable(),
      route_id: z.string().meta({ description: 'The route it arrived through; one event per matching route.' }),
      created_at: timestamp,
    })
    .meta({ id: 'EmailReceivedData', description: 'Compact: the content is at GET /emails/received/{email_id}.' }),
  // The domain exactly as GET /domains/{id} answers it (presentDomain is also the event's data).
  'domain.updated': domainSchema,
  [TEST_EVENT_TYPE]: z
    .object({ webhook_id: z.string().meta({ example: 'wh_01KAQ9B1C2D3E4F5G6H7J8K9M0' }), message: z.string() })
    .meta({ id: 'WebhookTestData', description: 'Sent only by POST /webhooks/{id}/test.' }),
};

/** `email.delivery_delayed` → `EmailDeliveryDelayedEvent`, the component of its body. */
export const eventComponentName = (type: string) => `${type.replace(/(^|[._])(\w)/g, (_, __, c: string) => c.toUpperCase())}Event`;

/** Every type a delivery can carry: the subscribable ones and `webhook.test`. */
export const DELIVERED_EVENT_TYPES = [...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE] as const;

/** The body of each event type: the one event form of DESIGN §5 with that type's data. Built once (schema ids are global). */
export const EVENT_PAYLOADS: ReadonlyMap<string, z.ZodType> = new Map(
  DELIVERED_EVENT_TYPES.map((type) => [
    type,
    z
      .object({
        id: z.string().meta({ description: 'evt_…: the same on every retry and replay (also `webhook-id`); deduplicate with it.', example: 'evt_01KAQ9A1B2C3D4E5F6G7H8J9K0' }),
        type: z.literal(type),
        created_at: timestamp.meta({ description: 'When it happened (not when this attempt was made).' }),
        data: DATA[type],
      })
      .meta({ id: eventComponentName(type) }),
  ]),
);
