import { DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES } from '@mailroom/core';
import { type Email, type EmailEvent, type EmailRecipient, type LinkClicks, presentEvent } from '@mailroom/db';
import { z } from 'zod';
import { EVENT_PAYLOADS } from '../../openapi/event-payloads';
import { timestamp } from '../../schemas/common';

const status = z.enum(DELIVERY_STATUSES).meta({ id: 'DeliveryStatus' });

// The types a sent email's timeline holds: its recipients' outcomes and engagement.
const TIMELINE_TYPES = WEBHOOK_EVENT_TYPES.filter((type) => type.startsWith('email.') && type !== 'email.received');

/** A timeline event: the one event form of DESIGN §5, each type with its own `data` (the webhook bodies' schemas). */
const eventSchema = z
  .union(TIMELINE_TYPES.map((type) => EVENT_PAYLOADS.get(type) as z.ZodType) as [z.ZodType, z.ZodType, ...z.ZodType[]])
  .meta({ id: 'Event', description: 'An event of the timeline, in the same form as its webhook body; `type` says which `data` it has.' });

const recipientSchema = z
  .object({
    email: z.string().meta({ example: 'ada@example.com' }),
    kind: z.enum(['to', 'cc', 'bcc']),
    status,
    attempts: z.number().int().meta({ description: 'Delivery attempts made so far.', example: 2 }),
    lastResponse: z
      .string()
      .nullable()
      .meta({ description: "The receiving server's latest reply (code and text), or why the latest attempt failed to get one.", example: '451 4.7.1 Greylisted, try again in 300 seconds' }),
    nextAttemptAt: timestamp.nullable().meta({ description: 'When the next attempt is due, while delivery is delayed; null otherwise.' }),
    opens: z.number().int().meta({ description: 'Opens by people (tracked emails; privacy proxies and prefetchers are not counted).', example: 1 }),
    clicks: z.number().int().meta({ description: 'Clicks by people (tracked emails; link scanners are not counted).', example: 2 }),
    firstOpenedAt: timestamp.nullable().meta({ description: 'When a person first opened it; null before.' }),
  })
  .meta({ id: 'EmailRecipient' });

const emailFields = {
  object: z.literal('email'),
  id: z.string().meta({ example: 'em_01JD0000000000000000000000' }),
  from: z.string(),
  to: z.array(z.string()),
  cc: z.array(z.string()),
  bcc: z.array(z.string()),
  replyTo: z.array(z.string()),
  subject: z.string(),
  tags: z.array(z.object({ name: z.string(), value: z.string() })),
  scheduledAt: timestamp.nullable(),
  createdAt: timestamp,
  trackOpens: z.boolean(),
  trackClicks: z.boolean(),
  status,
  lastEvent: z.string().nullable().meta({ description: 'Type of the newest event, engagement included.' }),
  recipients: z.array(recipientSchema),
};

export const emailSummarySchema = z.object(emailFields).meta({ id: 'EmailSummary' });
export const emailSchema = z
  .object({ ...emailFields, html: z.string().nullable(), text: z.string().nullable(), events: z.array(eventSchema).meta({ description: 'The timeline, oldest first.' }) })
  .meta({ id: 'Email' });

type PresentedRecipient = Pick<EmailRecipient, 'address' | 'kind' | 'status' | 'attempts' | 'lastResponse' | 'nextAttemptAt' | 'opens' | 'clicks' | 'firstOpenedAt'>;
type EmailWithRecipients = Email & { recipients: PresentedRecipient[] };

function presentRecipient(r: PresentedRecipient): z.infer<typeof recipientSchema> {
  return {
    email: r.address,
    kind: r.kind,
    status: r.status,
    attempts: r.attempts,
    lastResponse: r.lastResponse,
    nextAttemptAt: r.nextAttemptAt?.toISOString() ?? null,
    opens: r.opens,
    clicks: r.clicks,
    firstOpenedAt: r.firstOpenedAt?.toISOString() ?? null,
  };
}

export function presentEmailSummary(email: EmailWithRecipients): z.infer<typeof emailSummarySchema> {
  return {
    object: 'email',
    id: email.id,
    from: email.from,
    to: email.to,
    cc: email.cc,
    bcc: email.bcc,
    replyTo: email.replyTo,
    subject: email.subject,
    tags: email.tags as { name: string; value: string }[],
    scheduledAt: email.scheduledAt?.toISOString() ?? null,
    createdAt: email.createdAt.toISOString(),
    trackOpens: email.trackOpens,
    trackClicks: email.trackClicks,
    status: email.status,
    lastEvent: email.lastEvent,
    recipients: email.recipients.map(presentRecipient),
  };
}

export function presentEmail(email: EmailWithRecipients & { events: EmailEvent[] }): z.infer<typeof emailSchema> {
  // The timeline holds only events about this email, whose types the schema lists.
  const events = email.events.map((event) => presentEvent(event) as z.infer<typeof eventSchema>);
  return { ...presentEmailSummary(email), html: email.html, text: email.text, events };
}

export const linkClicksSchema = z
  .object({
    object: z.literal('link_clicks'),
    link: z.string().meta({ description: 'The URL the link redirects to.', example: 'https://acme.example/pricing' }),
    clicks: z.number().int().meta({ description: 'Clicks by people.', example: 3 }),
    uniqueClicks: z.number().int().meta({ description: 'Recipients who clicked it (people).', example: 2 }),
    botClicks: z.number().int().meta({ description: 'Clicks by link scanners and proxies (is_bot), not counted in clicks.', example: 1 }),
    firstClickedAt: timestamp.nullable().meta({ description: 'The first click by a person; null when only bots clicked.' }),
    lastClickedAt: timestamp.nullable().meta({ description: 'The latest click by a person; null when only bots clicked.' }),
  })
  .meta({ id: 'LinkClicks' });

export function presentLinkClicks(c: LinkClicks): z.infer<typeof linkClicksSchema> {
  return { object: 'link_clicks', ...c, firstClickedAt: c.firstClickedAt?.toISOString() ?? null, lastClickedAt: c.lastClickedAt?.toISOString() ?? null };
}
