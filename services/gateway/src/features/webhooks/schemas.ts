import { isIP } from 'node:net';
import { z } from 'zod';
import { listQueryFor } from '../../http/pagination';
import { dateTimeField, timestamp } from '../../schemas/common';
import { webhookEventType } from '../../schemas/webhook-event-type';

// Browsers and proxies commonly cap URLs near 2,000 characters; an endpoint needs far less.
const MAX_URL_LENGTH = 2048;
const MAX_DESCRIPTION_LENGTH = 500;

/**
 * An endpoint URL: absolute, http or https, without credentials, not to port 0. Normalized as
 * WHATWG URL does (host lower-cased, default port dropped). Whether its host is public is
 * checked afterwards, with DNS (`check-url-host.ts`).
 */
/** An IPv4 address or a bracketed IPv6 one, as WHATWG URL writes a host. */
const isIpLiteral = (hostname: string) => hostname.startsWith('[') || isIP(hostname) === 4;

export const webhookUrl = z
  .string()
  .trim()
  .min(1)
  .max(MAX_URL_LENGTH)
  .transform((value, ctx) => {
    const url = URL.canParse(value) ? new URL(value) : null;
    if (!url) {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute http(s) URL, such as "https://example.com/webhooks"' });
      return z.NEVER;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      ctx.addIssue({ code: 'custom', message: `must use http or https, not ${url.protocol.slice(0, -1)}` });
      return z.NEVER;
    }
    // WHATWG URL refuses ports above 65535 but takes 0, which is reserved and never listened on.
    if (url.port === '0') {
      ctx.addIssue({ code: 'custom', message: 'must not use port 0: nothing can be delivered to it' });
      return z.NEVER;
    }
    if (url.username !== '' || url.password !== '') {
      ctx.addIssue({
        code: 'custom',
        message:
          'must not contain a user name or password: the URL is shown in the endpoint and in every attempt of its log, where credentials would leak; check the signature of each delivery instead',
      });
      return z.NEVER;
    }
    // A name DNS cannot hold (an empty label, one over 63 octets, over 253 in all) could never be
    // looked up: refused as such, not as a lookup to try again. IP literals are WHATWG's to check.
    if (!isIpLiteral(url.hostname)) {
      const name = url.hostname.replace(/\.$/, '');
      if (name.length > 253 || name.split('.').some((label) => label.length === 0 || label.length > 63)) {
        ctx.addIssue({ code: 'custom', message: `must have a host name DNS can hold (labels of 1–63 characters, 253 in all); ${url.hostname} is not one` });
        return z.NEVER;
      }
    }
    // The limit holds for the URL as stored and requested: percent-encoding can make a URL typed
    // with non-ASCII characters several times longer (é becomes %C3%A9).
    if (url.href.length > MAX_URL_LENGTH) {
      ctx.addIssue({
        code: 'custom',
        message: `must be at most ${MAX_URL_LENGTH} characters once normalized (non-ASCII characters percent-encoded, an IDN host in punycode); this one has ${url.href.length}`,
      });
      return z.NEVER;
    }
    return url.href;
  })
  .meta({ description: 'Where deliveries are POSTed: http(s), no credentials, a public host (unless ALLOW_PRIVATE_NETWORKS).', example: 'https://app.acme.example/hooks/mailroom' });

export const webhookEvents = z
  .array(webhookEventType)
  .min(1, 'must name at least one event type')
  .max(50)
  .transform((types) => [...new Set(types)])
  .meta({ description: 'The event types to deliver; each at most once.' });

export const webhookRouteId = z
  .string()
  .max(64)
  .nullable()
  .meta({
    description: 'Only events about mail that arrived through this route of the project; the endpoint may then subscribe to route-scoped types only (`email.received`).',
    example: 'rt_01KAQ7D1E2F3G4H5J6K7M8N9P0',
  });

const description = z.string().trim().max(MAX_DESCRIPTION_LENGTH).nullable().meta({ description: 'Free text for people; null for none.' });

export const createWebhookRequest = z
  .object({
    url: webhookUrl,
    events: webhookEvents,
    routeId: webhookRouteId.optional(),
    description: description.optional(),
    enabled: z.boolean().default(true),
  })
  .meta({ id: 'CreateWebhookRequest' });

export const updateWebhookRequest = z
  .object({
    url: webhookUrl.optional(),
    events: webhookEvents.optional(),
    routeId: webhookRouteId.optional(),
    description: description.optional(),
    enabled: z.boolean().optional().meta({ description: 'false disables it (`disabledReason: "manual"`); true re-enables it, and it receives the events created from then on.' }),
  })
  .meta({ id: 'UpdateWebhookRequest' });

export const recoverRequest = z
  .object({
    since: dateTimeField().meta({ description: 'Re-deliver the events since this time (at most 14 days back, not in the future).', example: '2026-11-20T08:00:00Z' }),
  })
  .meta({ id: 'RecoverWebhookRequest' });

const booleanQuery = z
  .enum(['true', 'false'], { error: 'must be true or false' })
  .transform((value) => value === 'true');

export const attemptsQuery = listQueryFor('webhookAttempt').extend({
  eventId: z.string().min(1).max(64).optional().meta({ description: 'Only attempts to deliver this event (snake_case `event_id` also accepted).', example: 'evt_01KAQ9A1B2C3D4E5F6G7H8J9K0' }),
  event_id: z.string().min(1).max(64).optional().meta({ description: 'The snake_case spelling of `eventId`.' }),
  success: booleanQuery.optional().meta({ description: '`true`: only successful attempts; `false`: only failed ones.' }),
});

const disabledReason = z
  .enum(['gone', 'failing', 'manual'])
  .nullable()
  .meta({ description: 'Why it is disabled: `gone` after a 410, `failing` after 5 days without a success, `manual` when disabled through the API; null while enabled.' });

const webhookShape = {
  object: z.literal('webhook'),
  id: z.string().meta({ example: 'wh_01KAQ9B1C2D3E4F5G6H7J8K9M0' }),
  url: z.string(),
  events: z.array(webhookEventType),
  routeId: z.string().nullable(),
  description: z.string().nullable(),
  enabled: z.boolean(),
  disabledReason,
  createdAt: timestamp,
};

export const webhookSchema = z.object(webhookShape).meta({ id: 'Webhook' });

export const webhookWithSecretSchema = z
  .object({
    ...webhookShape,
    secret: z.string().meta({
      description: 'The signing secret, `whsec_` and base64. Shown only in this response: store it now.',
      example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw/1WMk8QzTrk=',
    }),
  })
  .meta({ id: 'WebhookWithSecret' });

export const webhookAttemptSchema = z
  .object({
    object: z.literal('webhook_attempt'),
    id: z.string().meta({ example: 'wha_01KAQ9C1D2E3F4G5H6J7K8M9N0' }),
    eventId: z.string().meta({ description: 'The event delivered; the same `webhook-id` on every attempt.' }),
    eventType: z.string(),
    attempt: z.number().int().meta({ description: '1, 2, … per event and endpoint, scheduled and manual attempts alike.' }),
    trigger: z.enum(['scheduled', 'manual']),
    url: z.string().meta({ description: 'The URL posted to (the endpoint URL at the time).' }),
    responseStatus: z.number().int().nullable().meta({ description: 'Null without a response (timeout, refused connection, blocked address).' }),
    responseBody: z.string().nullable().meta({ description: 'The first 4 KB of the response body.' }),
    durationMs: z.number().int(),
    error: z.string().nullable().meta({ description: 'Why it failed, when it did.' }),
    success: z.boolean().meta({ description: 'A 2xx within WEBHOOK_TIMEOUT_SECONDS.' }),
    createdAt: timestamp,
    nextRetryAt: timestamp.nullable().meta({ description: 'When the next scheduled attempt of this event is due; null when none will follow.' }),
  })
  .meta({ id: 'WebhookAttempt' });
