import type { EmailEventData, WebhookEventType } from '@mailroom/core';
import { appendEvents } from '../events';
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
  /** The report the event came from, when it came from one (see RecipientFeedback.sourceKey). */
  source_key?: string | null;
}

/**
 * Appends the outcome writer's events to the outbox, in the caller's transaction, through the
 * one append path of every producer (`appendEvents`).
 */
export async function insertEvents(client: PoolClient, events: readonly EmailEventRow[]): Promise<void> {
  await appendEvents(
    client,
    events.map((e) => ({
      id: e.id,
      projectId: e.project_id,
      subject: { kind: 'email' as const, emailId: e.email_id, recipient: e.recipient },
      type: e.type,
      data: e.data,
      createdAt: new Date(e.created_at),
      sourceKey: e.source_key ?? null,
    })),
  );
}
