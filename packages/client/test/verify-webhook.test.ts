import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../src/index';
import { rejectionOf } from './support/catch-error';

/**
 * verifyWebhook against signatures made by others: the `standardwebhooks` package (the Standard
 * Webhooks reference library) and plain node:crypto, following DESIGN §5 independently of the
 * client's Web Crypto code.
 */

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

const event = {
  id: 'evt_01KAQ4B2C3D4E5F6G7H8J9K0MN',
  type: 'email.bounced',
  created_at: '2026-11-21T10:00:00.000Z',
  data: {
    email_id: 'em_01KAQ4B2C3D4E5F6G7H8J9K0MN',
    from: 'Acme <hello@acme.example>',
    to: ['zoë@example.com'],
    subject: 'Welcome — again',
    tags: [],
    recipient: 'zoë@example.com',
    attempt: 1,
    smtp: { code: 550, enhanced_code: '5.1.1', message: 'No such user' },
    bounce: { type: 'hard', code: '5.1.1', message: 'No such user' },
  },
};
const body = JSON.stringify(event);

/** The Standard Webhooks signature, computed with node:crypto from DESIGN §5's words. */
function nodeSignature(secret: string, id: string, timestamp: number, payload: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${payload}`).digest('base64')}`;
}

/** X-Service-Signature: the raw body keyed with the whole secret's UTF-8 bytes. */
function serviceSignature(secret: string, payload: string): string {
  return `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(payload).digest('hex')}`;
}

/** The headers of a delivery as the dispatcher sends them, signed by the `standardwebhooks` package. */
function deliveryHeaders(secret: string, payload = body, timestamp = nowSeconds()): Record<string, string> {
  return {
    'webhook-id': event.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': new Webhook(secret).sign(event.id, new Date(timestamp * 1000), payload),
    'x-service-signature': serviceSignature(secret, payload),
    'x-service-timestamp': String(timestamp),
    'x-service-event-id': event.id,
  };
}

describe('verifyWebhook', () => {
  const secret = newSecret();

  test('when a delivery is signed by the standardwebhooks package, then it answers the event', async () => {
    expect(await verifyWebhook({ payload: body, headers: deliveryHeaders(secret), secret })).toEqual(event);
  });

  test('when it is signed with node:crypto and the headers come as fetch Headers, then it answers the event', async () => {
    const timestamp = nowSeconds();
    const headers = new Headers({ 'Webhook-Id': event.id, 'Webhook-Timestamp': String(timestamp), 'Webhook-Signature': nodeSignature(secret, event.id, timestamp, body) });
    headers.set('X-Service-Signature', serviceSignature(secret, body));
    expect(await verifyWebhook({ payload: body, headers, secret })).toEqual(event);
  });

  test('when the body comes as a Buffer, a Uint8Array or an ArrayBuffer, then it verifies the same bytes', async () => {
    const headers = deliveryHeaders(secret);
    const bytes = Buffer.from(body);
    for (const payload of [bytes, new Uint8Array(bytes), bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)]) {
      expect((await verifyWebhook({ payload, headers, secret })).id).toBe(event.id);
    }
  });

  test('when the secret was rotated, then either signature of the space-separated list is accepted, and a list without a good one is not', async () => {
    const old = newSecret();
    const timestamp = nowSeconds();
    const both = `${nodeSignature(old, event.id, timestamp, body)} ${nodeSignature(secret, event.id, timestamp, body)}`;
    const headers = { 'webhook-id': event.id, 'webhook-timestamp': String(timestamp), 'webhook-signature': both };
    expect((await verifyWebhook({ payload: body, headers, secret })).id).toBe(event.id);
    expect((await verifyWebhook({ payload: body, headers, secret: old })).id).toBe(event.id);
    expect(await rejectionOf(verifyWebhook({ payload: body, headers, secret: newSecret() }))).toBeInstanceOf(WebhookVerificationError);
  });

  test('when the body is tampered with, then it is rejected', async () => {
    const headers = deliveryHeaders(secret);
    const tampered = body.replace('"hard"', '"soft"');
    const error = await rejectionOf(verifyWebhook({ payload: tampered, headers, secret }));
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error.message).toMatch(/No webhook-signature matches/);
  });

  test('when the secret is wrong, then it is rejected', async () => {
    expect(await rejectionOf(verifyWebhook({ payload: body, headers: deliveryHeaders(secret), secret: newSecret() }))).toBeInstanceOf(WebhookVerificationError);
  });

  test('when the signed timestamp is older or newer than the tolerance, then it is rejected, whatever X-Service-Timestamp says', async () => {
    const old = deliveryHeaders(secret, body, nowSeconds() - 301);
    old['x-service-timestamp'] = String(nowSeconds());
    expect((await rejectionOf(verifyWebhook({ payload: body, headers: old, secret }))).message).toMatch(/webhook-timestamp is 30\d s from now/);
    const future = deliveryHeaders(secret, body, nowSeconds() + 301);
    expect(await rejectionOf(verifyWebhook({ payload: body, headers: future, secret }))).toBeInstanceOf(WebhookVerificationError);
    // A wider tolerance accepts the same delivery.
    expect((await verifyWebhook({ payload: body, headers: old, secret, toleranceSeconds: 600 })).id).toBe(event.id);
  });

  test('when the timestamp is changed without re-signing, then the signature no longer matches', async () => {
    const headers = deliveryHeaders(secret, body, nowSeconds() - 10);
    headers['webhook-timestamp'] = String(nowSeconds());
    expect((await rejectionOf(verifyWebhook({ payload: body, headers, secret }))).message).toMatch(/No webhook-signature matches/);
  });

  test('when X-Service-Signature is present but wrong, then it is rejected even though webhook-signature is right', async () => {
    const headers = { ...deliveryHeaders(secret), 'x-service-signature': serviceSignature(newSecret(), body) };
    expect((await rejectionOf(verifyWebhook({ payload: body, headers, secret }))).message).toMatch(/X-Service-Signature does not match/);
  });

  test('when the Standard Webhooks headers are missing, then it is rejected: X-Service-Signature alone cannot tell a replay', async () => {
    const { 'webhook-signature': _s, 'webhook-timestamp': _t, ...rest } = deliveryHeaders(secret);
    expect((await rejectionOf(verifyWebhook({ payload: body, headers: rest, secret }))).message).toMatch(/Missing the webhook-id/);
  });

  test('when a signature has another version or is not base64, then it is skipped, not trusted', async () => {
    const timestamp = nowSeconds();
    const good = nodeSignature(secret, event.id, timestamp, body).slice('v1,'.length);
    const headers = { 'webhook-id': event.id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v2,${good} v1,***` };
    expect(await rejectionOf(verifyWebhook({ payload: body, headers, secret }))).toBeInstanceOf(WebhookVerificationError);
  });

  test('when the tolerance or the clock is not a usable number (NaN from an unset variable, Infinity, a bad Date), or the secret lacks whsec_, then it throws a TypeError rather than turning the replay check off', async () => {
    const old = deliveryHeaders(secret, body, nowSeconds() - 365 * 86_400);
    for (const bad of [{ toleranceSeconds: Number(undefined) }, { toleranceSeconds: Number.POSITIVE_INFINITY }, { toleranceSeconds: -1 }, { now: new Date('garbage') }]) {
      const error = await rejectionOf(verifyWebhook({ payload: body, headers: old, secret, ...bad }));
      expect([bad, error]).toEqual([bad, expect.any(TypeError)]);
    }
    const unprefixed = await rejectionOf(verifyWebhook({ payload: body, headers: deliveryHeaders(secret), secret: secret.slice('whsec_'.length) }));
    expect(unprefixed).toBeInstanceOf(TypeError);
    expect(unprefixed.message).toMatch(/whsec_/);
  });

  test('when given parsed JSON instead of the raw body, then it says to pass the raw body', async () => {
    const error = await rejectionOf(verifyWebhook({ payload: event as any, headers: deliveryHeaders(secret), secret }));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(/raw body/);
  });

  test('when standardwebhooks verifies what node:crypto signed, then both sides of this test agree on the scheme', () => {
    const timestamp = nowSeconds();
    const headers = { 'webhook-id': event.id, 'webhook-timestamp': String(timestamp), 'webhook-signature': nodeSignature(secret, event.id, timestamp, body) };
    expect(new Webhook(secret).verify(body, headers)).toEqual(event);
  });
});
