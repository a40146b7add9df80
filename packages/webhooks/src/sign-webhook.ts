import { createHmac } from 'node:crypto';
import { remember } from './remember';

/** Sent on every delivery (DESIGN §5). */
export const WEBHOOK_USER_AGENT = 'Mailroom-Webhooks/1';

const SECRET_PREFIX = 'whsec_';

export interface SignWebhookInput {
  /** The exact bytes that will be posted. */
  body: string;
  /** evt_…; also the Standard Webhooks `webhook-id`, the same on every retry and replay. */
  eventId: string;
  eventType: string;
  /** The endpoint's newest secret, `whsec_…`. */
  secret: string;
  /** The secret before the last rotation, during the 24 h both are signed with. */
  previousSecret?: string | null;
  /** Unix seconds of this attempt. */
  timestamp: number;
}

/**
 * Every header of one delivery (DESIGN §5): `X-Service-Signature` (HMAC-SHA256 of the body,
 * keyed with the UTF-8 bytes of the whole newest secret, as GitHub-style verifiers do),
 * `X-Service-Event-Id/-Event-Type/-Timestamp`, and the Standard Webhooks headers
 * (`webhook-signature`: `v1,<base64>` of HMAC-SHA256 over `{id}.{timestamp}.{body}`, keyed with
 * the base64-decoded part of each secret, newest first, space-separated).
 */
export function signWebhook(input: SignWebhookInput): Record<string, string> {
  const timestamp = String(input.timestamp);
  const keys = keysOf(input.secret);
  const signed = `${input.eventId}.${timestamp}.${input.body}`;
  let signature = `v1,${createHmac('sha256', keys.standard).update(signed).digest('base64')}`;
  if (input.previousSecret) signature += ` v1,${createHmac('sha256', keysOf(input.previousSecret).standard).update(signed).digest('base64')}`;
  return {
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
    'x-service-signature': `sha256=${createHmac('sha256', keys.whole).update(input.body).digest('hex')}`,
    'x-service-event-id': input.eventId,
    'x-service-event-type': input.eventType,
    'x-service-timestamp': timestamp,
    'webhook-id': input.eventId,
    'webhook-timestamp': timestamp,
    'webhook-signature': signature,
  };
}

/** A secret's two HMAC keys: its whole UTF-8 bytes, and the Standard Webhooks key (the base64 after `whsec_`). */
interface SecretKeys {
  whole: Buffer;
  standard: Buffer;
}

// Secrets whose keys are kept per process (both encodings made once, not on every delivery); past it the cache starts over.
const MAX_CACHED_KEYS = 10_000;
const secretKeys = new Map<string, SecretKeys>();

function keysOf(secret: string): SecretKeys {
  return remember(secretKeys, secret, MAX_CACHED_KEYS, () => ({
    whole: Buffer.from(secret, 'utf8'),
    standard: Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64'),
  }));
}
