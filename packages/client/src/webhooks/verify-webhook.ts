import { WebhookVerificationError } from '../errors.ts';
import type { WebhookEvent } from './webhook-event.ts';

/** A receiver accepts a delivery whose signed timestamp is at most this far from its clock (s). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Request headers as frameworks give them: a fetch `Headers`, or a plain object (Node, express). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookParams {
  /** The request body exactly as received, before any JSON parsing. */
  payload: string | Uint8Array | ArrayBuffer;
  headers: WebhookHeaders;
  /** The endpoint's secret, `whsec_…`, as shown when it was created or rotated. */
  secret: string;
  /** How far the signed `webhook-timestamp` may be from now, either way; default 300 s. */
  toleranceSeconds?: number;
  /** The receiver's clock; default now. */
  now?: Date;
}

const encoder = new TextEncoder();

/**
 * Checks that a webhook delivery comes from Mailroom and is recent, and answers its event.
 *
 * The Standard Webhooks headers are required: `webhook-signature` (any of its space-separated
 * `v1,<base64>` signatures, several after a secret rotation) over `{webhook-id}.{webhook-timestamp}.{body}`,
 * keyed with the base64-decoded part of the secret after `whsec_`; and `webhook-timestamp`,
 * which judges staleness because the signature covers it. `X-Service-Signature`
 * (`sha256=<hex>` of the body, keyed with the whole secret's UTF-8 bytes) is checked too when
 * present, except while `webhook-signature` carries several signatures: after a rotation it is
 * made with the newest secret only, so the previous secret still verifies the delivery.
 * Signatures are compared by Web Crypto's `verify`, in constant time.
 *
 * @throws WebhookVerificationError when anything does not match; the delivery must then be refused.
 */
export async function verifyWebhook(params: VerifyWebhookParams): Promise<WebhookEvent> {
  const { headers, secret } = params;
  // The whole secret keys X-Service-Signature, so one without its prefix could never verify it.
  if (typeof secret !== 'string' || !secret.startsWith('whsec_')) throw new TypeError('verifyWebhook: secret must be the endpoint secret as shown, whsec_….');
  // NaN or Infinity would pass every timestamp, turning the replay check off.
  const toleranceSeconds = params.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (typeof toleranceSeconds !== 'number' || !Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) {
    throw new TypeError('verifyWebhook: toleranceSeconds must be a finite number of seconds, 0 or more.');
  }
  const now = params.now ?? new Date();
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) throw new TypeError('verifyWebhook: now must be a valid Date.');
  const body = bodyBytes(params.payload);
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (id === null || timestamp === null || signatures === null) {
    throw new WebhookVerificationError('Missing the webhook-id, webhook-timestamp or webhook-signature header.');
  }
  checkTimestamp(timestamp, toleranceSeconds, now);

  const signedContent = concat(encoder.encode(`${id}.${timestamp}.`), body);
  const standardKey = await hmacKey(base64Decode(secret.slice('whsec_'.length), 'secret'));
  const candidates = signatures.split(' ').filter((candidate) => candidate !== '');
  let matched = false;
  for (const candidate of candidates) {
    const [version, signature] = candidate.split(',', 2);
    if (version !== 'v1' || !signature) continue;
    const bytes = tryBase64Decode(signature);
    if (bytes && (await crypto.subtle.verify('HMAC', standardKey, bytes, signedContent))) matched = true;
  }
  if (!matched) throw new WebhookVerificationError('No webhook-signature matches the body with this secret.');

  // X-Service-Signature is made with the newest secret only (DESIGN §5). While a rotation's two
  // signatures are sent, a receiver still holding the previous secret cannot check it; the
  // webhook-signature that matched already covers the id, the timestamp and the body.
  const serviceSignature = header(headers, 'x-service-signature');
  if (serviceSignature !== null && candidates.length < 2 && !(await serviceSignatureMatches(serviceSignature, secret, body))) {
    throw new WebhookVerificationError('X-Service-Signature does not match the body with this secret.');
  }
  return parseEvent(body);
}

/** Whether `sha256=<hex>` is the HMAC of the body keyed with the whole secret's UTF-8 bytes. */
async function serviceSignatureMatches(value: string, secret: string, body: Uint8Array<ArrayBuffer>): Promise<boolean> {
  const hex = /^sha256=([0-9a-f]{64})$/i.exec(value)?.[1];
  if (!hex) return false;
  return crypto.subtle.verify('HMAC', await hmacKey(encoder.encode(secret)), hexDecode(hex), body);
}

function checkTimestamp(value: string, toleranceSeconds: number, now: Date): void {
  if (!/^\d{1,15}$/.test(value)) throw new WebhookVerificationError('webhook-timestamp is not a number of seconds.');
  const skew = Math.abs(now.getTime() / 1000 - Number(value));
  if (skew > toleranceSeconds) {
    throw new WebhookVerificationError(`webhook-timestamp is ${Math.round(skew)} s from now, more than the ${toleranceSeconds} s allowed: a replayed or delayed delivery.`);
  }
}

function parseEvent(body: Uint8Array<ArrayBuffer>): WebhookEvent {
  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new WebhookVerificationError('The body is signed but is not JSON.');
  }
  const { id, type, data } = (event ?? {}) as Record<string, unknown>;
  if (typeof id !== 'string' || typeof type !== 'string' || typeof data !== 'object' || data === null) {
    throw new WebhookVerificationError('The body is signed but is not an event ({id, type, created_at, data}).');
  }
  return event as WebhookEvent;
}

function header(headers: WebhookHeaders, name: string): string | null {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() !== name) continue;
    if (Array.isArray(value)) return value.join(' ');
    return value ?? null;
  }
  return null;
}

function bodyBytes(payload: VerifyWebhookParams['payload']): Uint8Array<ArrayBuffer> {
  if (typeof payload === 'string') return encoder.encode(payload);
  // A copy: Web Crypto takes no views of shared memory (nor Node's pooled Buffers, safely).
  if (payload instanceof Uint8Array) return new Uint8Array(payload);
  if (payload instanceof ArrayBuffer) return new Uint8Array(payload);
  throw new TypeError('verifyWebhook: payload must be the raw body (a string or bytes), not parsed JSON; with express use express.raw({ type: "application/json" }).');
}

// Spelt this way because Node's types, unlike the DOM's, have no global CryptoKey.
type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

function hmacKey(raw: Uint8Array): Promise<HmacKey> {
  return crypto.subtle.importKey('raw', raw as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
}

function concat(a: Uint8Array, b: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function tryBase64Decode(value: string): Uint8Array<ArrayBuffer> | null {
  try {
    return Uint8Array.from(atob(value), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

function base64Decode(value: string, what: string): Uint8Array<ArrayBuffer> {
  const bytes = tryBase64Decode(value);
  if (!bytes || bytes.length === 0) throw new TypeError(`verifyWebhook: the ${what} after whsec_ is not base64.`);
  return bytes;
}

function hexDecode(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}
