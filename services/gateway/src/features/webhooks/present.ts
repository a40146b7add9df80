import type { WebhookAttempt, WebhookRow } from '@mailroom/db';
import type { z } from 'zod';
import type { webhookAttemptSchema, webhookSchema, webhookWithSecretSchema } from './schemas';

/** An endpoint as every answer shows it: never its secret. */
export function presentWebhook(row: WebhookRow): z.infer<typeof webhookSchema> {
  return {
    object: 'webhook',
    id: row.id,
    url: row.url,
    events: row.events as z.infer<typeof webhookSchema>['events'],
    routeId: row.routeId,
    description: row.description,
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The answer to creation and rotation, the only two that show the secret. */
export function presentWebhookWithSecret(row: WebhookRow, secret: string): z.infer<typeof webhookWithSecretSchema> {
  return { ...presentWebhook(row), secret };
}

export function presentAttempt(row: WebhookAttempt): z.infer<typeof webhookAttemptSchema> {
  return {
    object: 'webhook_attempt',
    id: row.id,
    eventId: row.eventId,
    eventType: row.eventType,
    attempt: row.attempt,
    trigger: row.trigger,
    url: row.url,
    responseStatus: row.responseStatus,
    responseBody: row.responseBody,
    durationMs: row.durationMs,
    error: row.error,
    success: row.success,
    createdAt: row.createdAt.toISOString(),
    nextRetryAt: row.nextRetryAt?.toISOString() ?? null,
  };
}
