import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { signWebhook, WEBHOOK_USER_AGENT } from './sign-webhook';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** What a receiver with no Mailroom code does with `X-Service-Signature` (GitHub-style). */
function verifyServiceSignature(body: string, header: string | undefined, secret: string): boolean {
  if (!header?.startsWith('sha256=')) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(body, 'utf8').digest('hex'));
  const given = Buffer.from(header.slice('sha256='.length));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** standardwebhooks' verifier: true when it accepts the delivery. */
function verifiesStandard(secret: string, body: string, headers: Record<string, string>): boolean {
  try {
    new Webhook(secret).verify(body, headers);
    return true;
  } catch {
    return false;
  }
}

describe('signWebhook', () => {
  const body = JSON.stringify({ id: 'evt_01', type: 'email.delivered', created_at: '2026-11-23T03:00:00.000Z', data: { email_id: 'em_1', subject: 'Grüße' } });
  const now = () => Math.floor(Date.now() / 1000);

  test('when a delivery is signed, then it carries every header of DESIGN §5', () => {
    const secret = newSecret();
    const headers = signWebhook({ body, eventId: 'evt_01', eventType: 'email.delivered', secret, timestamp: 1_790_000_000 });
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': WEBHOOK_USER_AGENT,
      'x-service-event-id': 'evt_01',
      'x-service-event-type': 'email.delivered',
      'x-service-timestamp': '1790000000',
      'webhook-id': 'evt_01',
      'webhook-timestamp': '1790000000',
    });
    expect(headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(WEBHOOK_USER_AGENT).toBe('Mailroom-Webhooks/1');
  });

  test('when a receiver verifies with its own HMAC code and with standardwebhooks, then both accept the right secret', () => {
    const secret = newSecret();
    const headers = signWebhook({ body, eventId: 'evt_01', eventType: 'email.delivered', secret, timestamp: now() });
    expect(verifyServiceSignature(body, headers['x-service-signature'], secret)).toBe(true);
    expect(verifiesStandard(secret, body, headers)).toBe(true);
  });

  test('when the body is tampered with, then both verifications fail', () => {
    const secret = newSecret();
    const headers = signWebhook({ body, eventId: 'evt_01', eventType: 'email.delivered', secret, timestamp: now() });
    const tampered = body.replace('em_1', 'em_2');
    expect(verifyServiceSignature(tampered, headers['x-service-signature'], secret)).toBe(false);
    expect(verifiesStandard(secret, tampered, headers)).toBe(false);
  });

  test('when the receiver holds another secret, then both verifications fail', () => {
    const headers = signWebhook({ body, eventId: 'evt_01', eventType: 'email.delivered', secret: newSecret(), timestamp: now() });
    const wrong = newSecret();
    expect(verifyServiceSignature(body, headers['x-service-signature'], wrong)).toBe(false);
    expect(verifiesStandard(wrong, body, headers)).toBe(false);
  });

  test('when the timestamp is old, then standardwebhooks rejects the delivery as a replay', () => {
    const secret = newSecret();
    const headers = signWebhook({ body, eventId: 'evt_01', eventType: 'email.delivered', secret, timestamp: now() - 3600 });
    expect(verifiesStandard(secret, body, headers)).toBe(false);
  });

  test('when the webhook-id is changed, then standardwebhooks rejects the delivery', () => {
    const secret = newSecret();
    const headers = signWebhook({ body, eventId: 'evt_01', eventType: 'email.delivered', secret, timestamp: now() });
    expect(verifiesStandard(secret, body, { ...headers, 'webhook-id': 'evt_02' })).toBe(false);
  });

  test('when a previous secret is still valid, then webhook-signature holds both and each secret verifies; X-Service-Signature uses the newest', () => {
    const current = newSecret();
    const previous = newSecret();
    const headers = signWebhook({ body, eventId: 'evt_01', eventType: 'email.delivered', secret: current, previousSecret: previous, timestamp: now() });
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(verifiesStandard(current, body, headers)).toBe(true);
    expect(verifiesStandard(previous, body, headers)).toBe(true);
    expect(verifyServiceSignature(body, headers['x-service-signature'], current)).toBe(true);
    expect(verifyServiceSignature(body, headers['x-service-signature'], previous)).toBe(false);
  });
});
