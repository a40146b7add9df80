import { TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from '@mailroom/core';
import { z } from 'zod';

const KNOWN = WEBHOOK_EVENT_TYPES.join(', ');

/** `WebhookEventType` (DESIGN §5): what an endpoint may subscribe to. `webhook.test` is not one. */
export const webhookEventType = z
  .enum(WEBHOOK_EVENT_TYPES, {
    error: (issue) =>
      issue.input === TEST_EVENT_TYPE
        ? `${TEST_EVENT_TYPE} cannot be subscribed to: it is sent only by POST /webhooks/{id}/test, to that endpoint`
        : `unknown event type ${JSON.stringify(issue.input)}; known types are ${KNOWN}`,
  })
  .meta({ id: 'WebhookEventType', description: 'Event types a webhook endpoint can subscribe to.' });
