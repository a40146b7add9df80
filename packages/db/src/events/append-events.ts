import { newId, type TEST_EVENT_TYPE, type WebhookEventType } from '@mailroom/core';
import type { PoolClient } from '../pool';

/**
 * What an event is about: one recipient of a sent email (the email's timeline), a received
 * email (`email.received`, which has no row in `emails`), a webhook endpoint (`webhook.test`), or a
 * sending domain (`domain.updated`).
 */
export type EventSubject =
  | { kind: 'email'; emailId: string; recipient: string }
  | { kind: 'received_email'; receivedEmailId: string }
  | { kind: 'webhook'; webhookId: string }
  | { kind: 'domain'; domainId: string };

/**
 * An event's `data` already serialized: the JSON text of the object it stands for. A producer
 * appending thousands of events that share most of their fields (the tracking service's opens
 * of one email) serializes the shared part once instead of once per event.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/** An event to append; its `data` is already in the webhook form of DESIGN §5 (snake_case). */
export interface NewEvent {
  /** evt_…; made here when absent. Give one when the id must be known before the insert. */
  id?: string;
  projectId: string;
  subject: EventSubject;
  type: WebhookEventType | typeof TEST_EVENT_TYPE;
  data: object | JsonText;
  /** When it happened; now when absent. */
  createdAt?: Date;
  /** The report it came from (e.g. inb_… of a DSN), for the outcome writer's replay check; not delivered to webhooks. */
  sourceKey?: string | null;
}

/**
 * Appends events to the outbox, any number in one statement, inside the caller's transaction,
 * so they commit (or vanish) with the change they report. Within the call, positions follow the
 * order given. Returns the events' ids in that order. After the commit, tell the `events` queue
 * (`EventQueue.notify`); if that is lost, `reconcileOutbox` notices.
 */
export async function appendEvents(client: PoolClient, events: readonly NewEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const now = new Date().toISOString();
  const ids: string[] = [];
  // The rows' JSON written out here, each with only the columns its event has
  // (jsonb_to_recordset reads a missing key as NULL): no intermediate object per row, and a
  // `JsonText` data goes in as it is.
  let rows = '[';
  for (const e of events) {
    const id = e.id ?? newId('event');
    ids.push(id);
    if (rows.length > 1) rows += ',';
    rows += `{"id":${JSON.stringify(id)},"project_id":${JSON.stringify(e.projectId)},"type":${JSON.stringify(e.type)},"created_at":"${e.createdAt?.toISOString() ?? now}"`;
    const { subject } = e;
    if (subject.kind === 'email') rows += `,"email_id":${JSON.stringify(subject.emailId)},"recipient":${JSON.stringify(subject.recipient)}`;
    else if (subject.kind === 'received_email') rows += `,"received_email_id":${JSON.stringify(subject.receivedEmailId)}`;
    else if (subject.kind === 'webhook') rows += `,"webhook_id":${JSON.stringify(subject.webhookId)}`;
    else rows += `,"domain_id":${JSON.stringify(subject.domainId)}`;
    if (e.sourceKey != null) rows += `,"source_key":${JSON.stringify(e.sourceKey)}`;
    rows += `,"data":${e.data instanceof JsonText ? e.data.text : JSON.stringify(e.data)}}`;
  }
  rows += ']';
  await client.query({
    name: 'mailroom-append-events',
    // ORDER BY ordinality: positions (a bigserial default) are drawn in the order given.
    text: `INSERT INTO email_events (id, project_id, email_id, recipient, received_email_id, webhook_id, domain_id, type, data, created_at, source_key)
           SELECT e.id, e.project_id, e.email_id, e.recipient, e.received_email_id, e.webhook_id, e.domain_id, e.type, e.data, e.created_at, e.source_key
             FROM ROWS FROM (jsonb_to_recordset($1::jsonb)
                  AS (id text, project_id text, email_id text, recipient text, received_email_id text, webhook_id text, domain_id text, type text, data jsonb, created_at timestamptz, source_key text))
                  WITH ORDINALITY AS e(id, project_id, email_id, recipient, received_email_id, webhook_id, domain_id, type, data, created_at, source_key, n)
            ORDER BY e.n`,
    values: [rows],
  });
  return ids;
}
