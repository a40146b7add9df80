import type { EmailEventData, WebhookEventType } from '@mailroom/core';
import type { PoolClient } from '../pool';

/** One event about sent mail, as the outbox stores it. */
export interface EmailEventRow {
  id: string;
  project_id: string;
  email_id: string;
  type: WebhookEventType;
  recipient: string;
  data: EmailEventData;
  created_at: string;
}

/**
 * Appends events to the outbox in the caller's transaction. The one place the outcome writer
 * touches `email_events`: the events module of packages/db replaces it.
 */
export async function insertEvents(client: PoolClient, events: readonly EmailEventRow[]): Promise<void> {
  if (events.length === 0) return;
  await client.query({
    name: 'mailroom-insert-events',
    text: `INSERT INTO email_events (id, project_id, email_id, type, recipient, data, created_at)
           SELECT e.id, e.project_id, e.email_id, e.type, e.recipient, e.data, e.created_at
             FROM jsonb_to_recordset($1::jsonb) AS e(id text, project_id text, email_id text, type text, recipient text, data jsonb, created_at timestamptz)`,
    values: [JSON.stringify(events)],
  });
}
