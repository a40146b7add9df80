import { randomBytes } from 'node:crypto';
import { encryptSecret } from '@mailroom/core';

/** Every endpoint secret starts with this; the rest is the signing key in base64 (Standard Webhooks). */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
// 256 bits: the HMAC-SHA256 key size.
const SECRET_BYTES = 32;

/** A new endpoint secret: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** A new secret and its ciphertext under the encryption sub-key, which is all that is stored. */
export function sealNewWebhookSecret(encryptionKey: Buffer): { secret: string; ciphertext: string } {
  const secret = newWebhookSecret();
  return { secret, ciphertext: encryptSecret(encryptionKey, secret) };
}
