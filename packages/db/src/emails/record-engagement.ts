import { newId, type EmailEventData } from '@mailroom/core';
import { inTransaction, type Pool } from '../pool';
import { eventData, type EmailEventSubject } from './event-data';
import { insertEvents, type EmailEventRow } from './insert-events';

/** An open or a click by one recipient, as the tracking service buffers it. */
export interface EngagementEvent {
  email: EmailEventSubject;
  recipient: string;
  type: 'email.opened' | 'email.clicked';
  /** `open` or `click` of the event's data (DESIGN §5). */
  detail: Pick<EmailEventData, 'open' | 'click'>;
  at: Date;
}

/**
 * Appends engagement events, any number at once, in one transaction, and moves each email's
 * `lastEvent`; no status ever changes (the spec's rule). The emails are locked in id order, as
 * the outcome writer does, so a concurrent outcome and open leave the newest event as lastEvent.
 */
export async function recordEngagement(pool: Pool, events: readonly EngagementEvent[]): Promise<void> {
  if (events.length === 0) return;
  const emailIds = [...new Set(events.map((e) => e.email.id))].sort();
  const rows: EmailEventRow[] = events.map((e) => ({
    id: newId('event'),
    project_id: e.email.projectId,
    email_id: e.email.id,
    type: e.type,
    recipient: e.recipient,
    data: eventData(e.email, e.recipient, e.detail),
    created_at: e.at.toISOString(),
  }));
  await inTransaction(pool, async (client) => {
    await client.query({ name: 'mailroom-lock-emails', text: 'SELECT id FROM emails WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE', values: [emailIds] });
    await insertEvents(client, rows);
    await client.query({
      name: 'mailroom-update-last-event',
      text: `UPDATE emails e
                SET last_event = (SELECT type FROM email_events WHERE email_id = e.id ORDER BY created_at DESC, id DESC LIMIT 1), updated_at = now()
              WHERE e.id = ANY($1::text[])`,
      values: [emailIds],
    });
  });
}
