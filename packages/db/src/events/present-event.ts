import type { EmailEventData, EventBody } from '@mailroom/core';

/** An event as stored: a Prisma `EmailEvent` row, or one read from the outbox. */
export interface StoredEvent {
  id: string;
  type: string;
  createdAt: Date;
  data: unknown;
}

/**
 * The one JSON form of an event (DESIGN §5), the same in the email timeline and in webhook
 * bodies: `{id, type, created_at, data}`. `data` was stored in that form when appended.
 */
export function presentEvent<Data = EmailEventData>(event: StoredEvent): EventBody<Data> {
  return { id: event.id, type: event.type as EventBody['type'], created_at: event.createdAt.toISOString(), data: event.data as Data };
}
