import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { DELIVERED_EVENT_TYPES, EVENT_PAYLOADS } from './event-payloads';

/** One entry of a registry's definitions (not exported by name from every version of the library). */
type OpenAPIDefinitions = OpenAPIRegistry['definitions'][number];

/** The headers of every delivery (DESIGN §5). */
const deliveryHeaders = z.object({
  'content-type': z.literal('application/json'),
  'user-agent': z.literal('Mailroom-Webhooks/1'),
  'x-service-signature': z.string().meta({
    description: '`sha256=` and the hex HMAC-SHA256 of the raw body, keyed with the UTF-8 bytes of the whole secret string (`whsec_…` included); always the newest secret.',
    example: 'sha256=5b0c3f9a2e…',
  }),
  'x-service-event-id': z.string().meta({ description: 'The event id, `evt_…`.' }),
  'x-service-event-type': z.string().meta({ description: 'The event type.', example: 'email.delivered' }),
  'x-service-timestamp': z.string().meta({ description: 'Unix seconds of this attempt.', example: '1795255200' }),
  'webhook-id': z.string().meta({ description: 'Standard Webhooks: the event id, the same on every retry and replay.' }),
  'webhook-timestamp': z.string().meta({ description: 'Standard Webhooks: Unix seconds of this attempt; reject old ones to refuse replays.' }),
  'webhook-signature': z.string().meta({
    description:
      'Standard Webhooks: `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the secret after `whsec_`. For 24 hours after a rotation, two entries separated by a space (new secret, then the previous one).',
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  }),
});

const RESPONSES = {
  '2XX': { description: 'Any 2xx within WEBHOOK_TIMEOUT_SECONDS acknowledges the delivery; the body is kept (first 4 KB) in the attempt log.' },
  '410': { description: 'Gone: the endpoint is disabled (`disabledReason: "gone"`) and receives nothing more.' },
  default: {
    description:
      'Anything else, a redirect, a timeout or no answer is a failure, retried on WEBHOOK_RETRY_SCHEDULE; 429 and 503 with `Retry-After` are retried after that delay (capped).',
  },
};

/**
 * The top-level `webhooks` of the OpenAPI 3.1 document: what Mailroom POSTs to an endpoint, one
 * entry per event type, with its body and headers.
 */
export function registerWebhookDeliveries(registry: OpenAPIRegistry): void {
  for (const type of DELIVERED_EVENT_TYPES) {
    const schema = EVENT_PAYLOADS.get(type) as z.ZodType;
    registry.registerWebhook({
      method: 'post',
      path: type,
      operationId: `deliver_${type.replace('.', '_')}`,
      summary: type === 'webhook.test' ? 'A test delivery (POST /webhooks/{id}/test)' : `The \`${type}\` event`,
      tags: ['Webhook deliveries'],
      request: {
        headers: deliveryHeaders,
        body: { required: true, content: { 'application/json': { schema } } },
      },
      responses: RESPONSES,
    });
  }
}

/**
 * The event bodies as schema definitions, for the generator. It writes components before it
 * reads webhooks, so without these the webhooks' `$ref`s would point at nothing.
 */
export const webhookPayloadDefinitions = (): OpenAPIDefinitions[] => [...EVENT_PAYLOADS.values()].map((schema) => ({ type: 'schema', schema }));
