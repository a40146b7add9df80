import { decryptSecret } from '@mailroom/core';
import { type AttemptRecord, type DeliveryTarget, presentEvent } from '@mailroom/db';
import { remember } from './remember';
import { signWebhook } from './sign-webhook';
import type { PostResult, WebhookClient } from './webhook-client';

/** The longest `Retry-After` honoured (6 h); a longer one waits this long. */
export const MAX_RETRY_AFTER_SECONDS = 6 * 3600;
// Each scheduled delay is stretched or shrunk by up to this fraction, so endpoints that failed
// together are not all retried in the same instant.
const JITTER = 0.1;

export interface AttemptDeps {
  client: WebhookClient;
  /** The secret sub-key: `deriveKey(masterSecret, 'encryption')`. */
  encryptionKey: Buffer;
  /** Decrypted secrets by ciphertext (a rotation makes a new ciphertext), so each is opened once. */
  secrets?: Map<string, string>;
  /** WEBHOOK_RETRY_SCHEDULE: seconds before attempt 2, 3, … */
  retrySchedule: readonly number[];
  /** In [0, 1); `Math.random` unless a test fixes it. */
  random?: () => number;
}

/**
 * Makes one attempt of a delivery: signs the event's one JSON body (DESIGN §5), posts it, and
 * says what to record. `leased`: the caller holds the delivery's lease (scheduled attempts,
 * recover, test); a replay does not. Never throws for the endpoint's behaviour; the outcome
 * is in the record.
 */
export async function attemptDelivery(deps: AttemptDeps, target: DeliveryTarget, options: { leased: boolean }): Promise<AttemptRecord> {
  const body = JSON.stringify(presentEvent(target.event));
  const now = new Date();
  const headers = signWebhook({
    body,
    eventId: target.eventId,
    eventType: target.event.type,
    secret: openSecret(deps, target.secretCiphertext),
    previousSecret: target.previousSecretCiphertext ? openSecret(deps, target.previousSecretCiphertext) : null,
    timestamp: Math.floor(now.getTime() / 1000),
  });
  const result = await deps.client.post(target.url, body, headers);
  const success = result.status !== null && result.status >= 200 && result.status < 300;
  const gone = result.status === 410;
  const trigger = target.manual ? 'manual' : 'scheduled';
  return {
    eventId: target.eventId,
    webhookId: target.webhookId,
    eventType: target.event.type,
    trigger,
    url: target.url,
    responseStatus: result.status,
    responseBody: result.body,
    durationMs: result.durationMs,
    error: result.error ?? (success || result.status === null ? null : describeStatus(result.status)),
    success,
    // Counted from the answer (or the timeout), not from the start: a slow or hung attempt does not eat its delay, nor a 429 its Retry-After.
    nextRetryAt: success || gone || trigger === 'manual' ? null : nextRetryAt(deps, target.scheduledAttemptsBefore, result, new Date(now.getTime() + result.durationMs)),
    createdAt: now,
    leased: options.leased,
    gone,
  };
}

/**
 * When a failed scheduled attempt is tried again: after the schedule's delay for this attempt
 * (with jitter; `scheduledBefore` is the delivery's scheduled attempts before it, as a manual
 * one uses up no retry), or after `Retry-After` on a 429 or 503 when that is later (capped at
 * MAX_RETRY_AFTER_SECONDS). Null once the schedule is exhausted.
 */
export function nextRetryAt(deps: Pick<AttemptDeps, 'retrySchedule' | 'random'>, scheduledBefore: number, result: Pick<PostResult, 'status' | 'retryAfterSeconds'>, now: Date): Date | null {
  const scheduled = deps.retrySchedule[scheduledBefore];
  if (scheduled === undefined) return null;
  const random = deps.random ?? Math.random;
  let delaySeconds = scheduled * (1 + JITTER * (2 * random() - 1));
  if ((result.status === 429 || result.status === 503) && result.retryAfterSeconds !== null) {
    delaySeconds = Math.max(delaySeconds, Math.min(result.retryAfterSeconds, MAX_RETRY_AFTER_SECONDS));
  }
  return new Date(now.getTime() + Math.round(delaySeconds * 1000));
}

// Secrets kept decrypted per process; past it the cache starts over.
const MAX_CACHED_SECRETS = 10_000;

function openSecret(deps: AttemptDeps, ciphertext: string): string {
  const decrypt = () => decryptSecret(deps.encryptionKey, ciphertext);
  return deps.secrets ? remember(deps.secrets, ciphertext, MAX_CACHED_SECRETS, decrypt) : decrypt();
}

function describeStatus(status: number): string {
  if (status >= 300 && status < 400) return `HTTP ${status}: redirects are not followed.`;
  if (status === 410) return 'HTTP 410: the endpoint is gone and has been disabled.';
  return `HTTP ${status}.`;
}
