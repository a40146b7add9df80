import type { Queryable } from '../pool';
import { type AttemptRow, toWebhookAttempt, type WebhookAttempt } from '../webhook-deliveries';

export interface WebhookAttemptQuery {
  projectId: string;
  webhookId: string;
  eventId?: string | undefined;
  success?: boolean | undefined;
  /** Only ids below this one (the last id of the previous page). */
  before?: string | undefined;
  limit: number;
}

// Timestamps are UTC without a zone, as Prisma writes them; read them as such whatever the session's zone.
const COLUMNS = `a.id, a.webhook_id, a.event_id, a.event_type, a.attempt, a.trigger, a.url, a.response_status, a.response_body,
  a.duration_ms, a.error, a.success, a.next_retry_at AT TIME ZONE 'UTC' AS next_retry_at, a.created_at AT TIME ZONE 'UTC' AS created_at`;

/**
 * One page of an endpoint's attempt log, newest first (ids sort by creation time), optionally of
 * one event or only successes or failures. Empty when the endpoint is not the project's.
 */
export async function listWebhookAttempts(db: Queryable, query: WebhookAttemptQuery): Promise<WebhookAttempt[]> {
  const { rows } = await db.query<AttemptRow>({
    text: `SELECT ${COLUMNS}
             FROM webhook_attempts a
             JOIN webhooks w ON w.id = a.webhook_id
            WHERE a.webhook_id = $1 AND w.project_id = $2
              AND ($3::text IS NULL OR a.event_id = $3)
              AND ($4::boolean IS NULL OR a.success = $4)
              AND ($5::text IS NULL OR a.id < $5)
            ORDER BY a.id DESC
            LIMIT $6`,
    values: [query.webhookId, query.projectId, query.eventId ?? null, query.success ?? null, query.before ?? null, query.limit],
  });
  return rows.map(toWebhookAttempt);
}
