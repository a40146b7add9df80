import { loadConfig } from '@mailroom/core';
import { Receiver } from '../../../services/webhook-dispatcher/test/support';
import { type RunningDispatcher, startDispatcher } from '../../../services/webhook-dispatcher/src/start-dispatcher';
import { until } from '../../../services/inbound-smtp/test/smtp-support';
import { createKey, signUp } from '../../../test/support/gateway';
import { type SendingStack, startSendingStack } from '../../../test/support/sending';
import { Mailroom, verifyWebhook, type WebhookEventOf, WebhookVerificationError } from '../src/index';
import { rejectionOf } from './support/catch-error';

/**
 * verifyWebhook on real deliveries: the gateway, the sender and the webhook dispatcher run, an
 * endpoint made with the client receives the events of an email sent with the client, and what
 * arrived at the receiver is verified as it came — then tampered with, checked with the wrong
 * secret and judged from ten minutes later.
 */

let stack: SendingStack;
let dispatcher: RunningDispatcher;
let receiver: Receiver;
let mailroom: Mailroom;

beforeAll(async () => {
  stack = await startSendingStack('client-webhooks', { ALLOW_PRIVATE_NETWORKS: 'true', ALLOW_SIGNUP: 'true', WEBHOOK_RETRY_SCHEDULE: '1,1', WEBHOOK_TIMEOUT_SECONDS: '5' });
  dispatcher = await startDispatcher(loadConfig(stack.env));
  receiver = await new Receiver().start();
  const owner = await signUp(stack.t.api);
  mailroom = new Mailroom({ baseUrl: stack.t.gateway.url, apiToken: (await createKey(owner.as)).token });
}, 60_000);

afterAll(async () => {
  await receiver?.stop();
  await dispatcher?.stop();
  await stack?.close();
});

/** The deliveries of one email's event of `type` so far. */
const deliveriesOf = (emailId: string, type: string) =>
  receiver.requests.filter((r) => r.headers['webhook-id'] !== undefined && r.body.includes(emailId) && JSON.parse(r.body).type === type);

async function sendAndAwaitDelivered(subject: string) {
  const { id } = await mailroom.emails.send({ from: 'hello@acme.example', to: 'delivered@sandbox.mailroom.test', subject, text: 'Hi' });
  await until(async () => deliveriesOf(id, 'email.delivered').length > 0, 20_000, `email.delivered of ${id} at the receiver`);
  return { id, delivery: deliveriesOf(id, 'email.delivered')[0]! };
}

test('when the dispatcher delivers an email’s events, then verifyWebhook accepts them and answers the typed event; tampered, wrongly keyed or stale, it refuses', async () => {
  const endpoint = await mailroom.webhooks.create({ url: receiver.url, events: ['email.sent', 'email.delivered'] });
  const { id, delivery } = await sendAndAwaitDelivered('Signed');

  const event = await verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: endpoint.secret });
  expect(event.type).toBe('email.delivered');
  const delivered = event as WebhookEventOf<'email.delivered'>;
  expect(delivered.data).toMatchObject({ email_id: id, recipient: 'delivered@sandbox.mailroom.test', subject: 'Signed' });
  expect(delivered.data.smtp.code).toBe(250);
  expect(delivery.headers['x-service-signature']).toMatch(/^sha256=/);

  const tampered = delivery.body.replace('"Signed"', '"Signet"');
  expect(await rejectionOf(verifyWebhook({ payload: tampered, headers: delivery.headers, secret: endpoint.secret }))).toBeInstanceOf(WebhookVerificationError);
  const other = await mailroom.webhooks.create({ url: `${receiver.url}?other`, events: ['email.sent'] });
  expect(await rejectionOf(verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: other.secret }))).toBeInstanceOf(WebhookVerificationError);
  const later = new Date(Date.now() + 10 * 60_000);
  const stale = await rejectionOf(verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: endpoint.secret, now: later }));
  expect(stale.message).toMatch(/webhook-timestamp/);
  await mailroom.webhooks.remove(other.id);
});

test('when the secret is rotated, then deliveries carry two signatures and verify with the new secret and the old one', async () => {
  const endpoint = await mailroom.webhooks.create({ url: `${receiver.url}?rotated`, events: ['email.delivered'] });
  const { secret } = await mailroom.webhooks.rotateSecret(endpoint.id);
  const { delivery } = await sendAndAwaitDelivered('Rotated');
  // The first delivery seen may be another endpoint's (the first test's, also subscribed): wait for this one's.
  const ofRotated = () => receiver.requests.filter((r) => r.url.endsWith('?rotated') && r.body === delivery.body);
  await until(async () => ofRotated().length > 0, 20_000, 'the rotated endpoint’s delivery');
  const rotated = ofRotated();
  const signatures = rotated.map((r) => String(r.headers['webhook-signature']).split(' ').length);
  expect(signatures).toContain(2);
  const twoSigned = rotated.find((r) => String(r.headers['webhook-signature']).includes(' '))!;
  expect((await verifyWebhook({ payload: twoSigned.body, headers: twoSigned.headers, secret })).type).toBe('email.delivered');
  // X-Service-Signature uses the newest secret only; without it, the old secret's v1 signature verifies.
  const { 'x-service-signature': _, ...standardOnly } = twoSigned.headers;
  expect((await verifyWebhook({ payload: twoSigned.body, headers: standardOnly, secret: endpoint.secret })).type).toBe('email.delivered');
});
