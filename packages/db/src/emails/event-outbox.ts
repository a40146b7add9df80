import { newId, type EmailEventData, type EventBody, type WebhookEventType } from '@mailroom/core';
import type { Prisma } from '../generated/client';

export type Transaction = Prisma.TransactionClient;

export interface NewEmailEvent {
  projectId: string;
  emailId: string;
  type: WebhookEventType;
  recipient: string | null;
  data: EmailEventData;
  createdAt?: Date;
}

/**
 * The one boundary every email event passes through. Events are written to the outbox
 * (`email_events`) in the caller's transaction, together with the state change they report,
 * so an event exists exactly when its change does. The outbox is the email's timeline and the
 * source the webhook dispatcher delivers from. Returns the stored events in their webhook form.
 */
export async function appendEmailEvents(tx: Transaction, events: readonly NewEmailEvent[]): Promise<EventBody[]> {
  if (events.length === 0) return [];
  const now = new Date();
  const rows = events.map((event) => ({
    id: newId('event'),
    projectId: event.projectId,
    emailId: event.emailId,
    type: event.type,
    recipient: event.recipient,
    data: event.data as unknown as Prisma.InputJsonValue,
    createdAt: event.createdAt ?? now,
  }));
  await tx.emailEvent.createMany({ data: rows });
  const newest = rows.reduce((a, b) => (b.createdAt >= a.createdAt ? b : a));
  await tx.email.update({ where: { id: newest.emailId }, data: { lastEvent: newest.type } });
  return rows.map((row) => ({ id: row.id, type: row.type, created_at: row.createdAt.toISOString(), data: row.data as unknown as EmailEventData }));
}

/** The fields of an email every event about it carries. */
export interface EmailEventSubject {
  id: string;
  projectId: string;
  from: string;
  to: string[];
  subject: string;
  tags: unknown;
}

export function eventData(email: EmailEventSubject, recipient: string, extra: Partial<EmailEventData> = {}): EmailEventData {
  return {
    email_id: email.id,
    from: email.from,
    to: email.to,
    subject: email.subject,
    tags: (email.tags ?? []) as EmailEventData['tags'],
    recipient,
    ...extra,
  };
}
