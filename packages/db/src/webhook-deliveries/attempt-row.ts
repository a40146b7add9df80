/** One row of the attempt log (DESIGN §5), as the gateway presents it. */
export interface WebhookAttempt {
  /** wha_… */
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  /** 1, 2, … per (event, endpoint). */
  attempt: number;
  trigger: 'scheduled' | 'manual';
  url: string;
  /** Null without a response (timeout, refused connection, blocked address). */
  responseStatus: number | null;
  /** The first 4 KB of the response body. */
  responseBody: string | null;
  durationMs: number;
  error: string | null;
  success: boolean;
  nextRetryAt: Date | null;
  createdAt: Date;
}

export interface AttemptRow {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  trigger: 'scheduled' | 'manual';
  url: string;
  response_status: number | null;
  response_body: string | null;
  duration_ms: number;
  error: string | null;
  success: boolean;
  next_retry_at: Date | null;
  created_at: Date;
}

export function toWebhookAttempt(row: AttemptRow): WebhookAttempt {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    eventId: row.event_id,
    eventType: row.event_type,
    attempt: row.attempt,
    trigger: row.trigger,
    url: row.url,
    responseStatus: row.response_status,
    responseBody: row.response_body,
    durationMs: row.duration_ms,
    error: row.error,
    success: row.success,
    nextRetryAt: row.next_retry_at,
    createdAt: row.created_at,
  };
}
