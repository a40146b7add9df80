import { loadConfig, WEBHOOK_EVENT_TYPES } from '@mailroom/core';
import Ajv2020 from 'ajv/dist/2020';
import { isFinished, type SendingStack, startSendingStack, waitForEmail } from '../../../test/support/sending';
import { type RunningDispatcher, startDispatcher } from '../../webhook-dispatcher/src/start-dispatcher';
import { Receiver, until } from '../../webhook-dispatcher/test/support';
import { eventComponentName } from '../src/openapi/event-payloads';

const SANDBOX = ['delivered', 'bounced', 'complained', 'delayed', 'suppressed'].map((box) => `${box}@sandbox.mailroom.test`);

// DESIGN §5: one JSON form of an event everywhere. What an endpoint receives must be, byte for
// byte, the event as GET /emails/{id} shows it, and valid against the OpenAPI document's schema.
describe('webhook bodies of real events', () => {
  let stack: SendingStack;
  let dispatcher: RunningDispatcher;
  const receiver = new Receiver();
  let doc: any;

  beforeAll(async () => {
    await receiver.start();
    stack = await startSendingStack('webhooks_payloads', { ALLOW_SIGNUP: 'true', ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '1,1' });
    dispatcher = await startDispatcher(loadConfig(stack.env));
    doc = (await stack.api.get('/openapi.json')).body;
  });
  afterAll(async () => {
    await dispatcher.stop();
    await stack.close();
    await receiver.stop();
  });

  test('when sandbox sends produce every outcome, then each delivered body is its timeline event exactly and valid against the webhooks schema', async () => {
    const endpoint = await stack.api.post('/webhooks', { url: receiver.url, events: WEBHOOK_EVENT_TYPES.filter((t) => t.startsWith('email.')) });
    expect(endpoint.status).toBe(201);
    const sent = await stack.api.post('/emails', {
      from: 'Acme <hello@acme.example>',
      to: SANDBOX,
      subject: 'Grüße — payloads',
      text: 'Hi',
      tags: [{ name: 'kind', value: 'probe' }],
    });
    expect(sent.status).toBe(200);
    const email = await waitForEmail(stack.api, sent.body.id, (e) => isFinished(e) && e.events.some((ev: { type: string }) => ev.type === 'email.complained'), 30_000);
    const timeline = email.events as { id: string; type: string }[];
    expect(new Set(timeline.map((e) => e.type))).toEqual(
      new Set(['email.sent', 'email.delivered', 'email.bounced', 'email.complained', 'email.delivery_delayed', 'email.suppressed']),
    );
    await until(() => timeline.every((e) => receiver.forEvent(e.id).length > 0), 20_000, 'every event to be delivered');

    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema({ ...doc, $id: 'mailroom-openapi' });
    for (const event of timeline) {
      const [request] = receiver.forEvent(event.id);
      // The same bytes: same fields, same order, same values.
      expect({ type: event.type, body: request?.body }).toEqual({ type: event.type, body: JSON.stringify(event) });
      const schemaRef = doc.webhooks[event.type].post.requestBody.content['application/json'].schema.$ref as string;
      expect(schemaRef).toBe(`#/components/schemas/${eventComponentName(event.type)}`);
      const validate = ajv.getSchema(`mailroom-openapi${schemaRef}`);
      if (!validate) throw new Error(`no schema at ${schemaRef}`);
      const valid = validate(JSON.parse(request?.body ?? 'null'));
      expect({ type: event.type, valid, errors: validate.errors ?? null }).toEqual({ type: event.type, valid: true, errors: null });
      expect(Number.isNaN(Date.parse((event as unknown as { created_at: string }).created_at))).toBe(false);
    }
  });
});
