import { DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES, type EventBody } from '@mailroom/core';
import type { Email, EmailEvent, EmailRecipient } from '@mailroom/db';
import { z } from 'zod';
import { timestamp } from '../../schemas/common';

const status = z.enum(DELIVERY_STATUSES).meta({ id: 'DeliveryStatus' });

export const eventSchema = z
  .object({
    id: z.string().meta({ example: 'evt_01JD0000000000000000000000' }),
    type: z.enum(WEBHOOK_EVENT_TYPES),
    created_at: timestamp,
    data: z.record(z.string(), z.unknown()).meta({ description: 'email_id, from, to, subject, tags, recipient, and attempt/smtp/bounce where they apply.' }),
  })
  .meta({ id: 'Event' });

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
  recipients: z.array(z.object({ email: z.string(), status })),
};

export const emailSummarySchema = z.object(emailFields).meta({ id: 'EmailSummary' });
export const emailSchema = z
  .object({ ...emailFields, html: z.string().nullable(), text: z.string().nullable(), events: z.array(eventSchema).meta({ description: 'The timeline, oldest first.' }) })
  .meta({ id: 'Email' });

type EmailWithRecipients = Email & { recipients: Pick<EmailRecipient, 'address' | 'status'>[] };

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
    recipients: email.recipients.map((r) => ({ email: r.address, status: r.status })),
  };
}

export function presentEmail(email: EmailWithRecipients & { events: EmailEvent[] }): z.infer<typeof emailSchema> {
  return { ...presentEmailSummary(email), html: email.html, text: email.text, events: email.events.map(presentEvent) };
}

export function presentEvent(event: EmailEvent): EventBody & z.infer<typeof eventSchema> {
  return { id: event.id, type: event.type as EventBody['type'] & z.infer<typeof eventSchema>['type'], created_at: event.createdAt.toISOString(), data: event.data as never };
}
