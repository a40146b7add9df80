/**
 * Type tests: each line after a `@ts-expect-error` must fail to compile, and the rest must
 * compile. `tsc -p test/types` checks both (an unneeded directive is itself an error);
 * test/types.test.ts also removes the directives and checks the errors land on exactly those lines.
 */
import { Mailroom, type MailroomError, verifyWebhook, type WebhookEvent } from '../../src/index.ts';

// Construction: exactly one way to authenticate.
new Mailroom({ apiToken: 'mr_x' });
new Mailroom({ sessionToken: 'token', projectId: 'proj_1', baseUrl: 'https://mail.example.com', maxRetries: 0 });
// @ts-expect-error both an API key and a session
new Mailroom({ apiToken: 'mr_x', sessionToken: 'token', projectId: 'proj_1' });
// @ts-expect-error a session without its project
new Mailroom({ sessionToken: 'token' });
// @ts-expect-error neither
new Mailroom({});
// @ts-expect-error a misspelt setting
new Mailroom({ apiToken: 'mr_x', baseURL: 'https://mail.example.com' });

const mailroom = new Mailroom({ apiToken: 'mr_x' });

export async function sending(): Promise<void> {
  const { id }: { id: string } = await mailroom.emails.send({ from: 'a@acme.example', to: ['b@example.com'], subject: 'Hi', html: '<p>Hi</p>', trackOpens: true });
  await mailroom.emails.send({ from: 'a@acme.example', to: 'b@example.com', subject: 'Hi', text: 'Hi' }, { idempotencyKey: id, timeoutMs: 5_000 });
  // @ts-expect-error a wrong field (trackOpen for trackOpens)
  await mailroom.emails.send({ from: 'a@acme.example', to: 'b@example.com', subject: 'Hi', text: 'Hi', trackOpen: true });
  // @ts-expect-error a missing required field (subject)
  await mailroom.emails.send({ from: 'a@acme.example', to: 'b@example.com', text: 'Hi' });
  // @ts-expect-error a field of the wrong type
  await mailroom.emails.send({ from: 'a@acme.example', to: 42, subject: 'Hi', text: 'Hi' });
  // @ts-expect-error an unknown per-call option
  await mailroom.emails.send({ from: 'a@acme.example', to: 'b@example.com', subject: 'Hi', text: 'Hi' }, { idempotency: 'k' });
  // @ts-expect-error a batch is an array of sends
  await mailroom.emails.batch({ from: 'a@acme.example', to: 'b@example.com', subject: 'Hi', text: 'Hi' });
}

export async function reading(): Promise<void> {
  const email = await mailroom.emails.get('em_1');
  const delivered: boolean = email.status === 'delivered';
  // @ts-expect-error status is one of the contract's statuses
  const lost: boolean = email.status === 'lost';
  // @ts-expect-error an unknown list filter value
  mailroom.emails.list({ status: 'lost' });
  // @ts-expect-error permission is full_access or sending_access
  await mailroom.apiKeys.create({ name: 'key', permission: 'admin' });
  // @ts-expect-error an event type that does not exist
  await mailroom.webhooks.create({ url: 'https://app.acme.example/hooks', events: ['email.lost'] });
  const page = await mailroom.routes.list({ limit: 10 });
  const more: boolean = page.hasMore;
  for await (const summary of mailroom.emails.list({ to: 'b@example.com' })) {
    // @ts-expect-error list items are summaries, without the timeline
    summary.events;
  }
  const raw: Uint8Array = await mailroom.receivedEmails.raw('inb_1');
  // @ts-expect-error a raw message is bytes, not text
  const text: string = await mailroom.receivedEmails.raw('inb_1');
  void [delivered, lost, more, raw, text];
}

export function failing(error: MailroomError): void {
  const known: boolean = error.name === 'rate_limit_exceeded';
  // @ts-expect-error not an error name of the contract
  const unknown: boolean = error.name === 'rate_limited';
  void [known, unknown];
}

export async function receiving(request: Request): Promise<void> {
  const event: WebhookEvent = await verifyWebhook({ payload: await request.text(), headers: request.headers, secret: 'whsec_x' });
  // @ts-expect-error bounce is on email.bounced only
  event.data.bounce;
  // @ts-expect-error not an event type
  if (event.type === 'email.lost') return;
  switch (event.type) {
    case 'email.bounced': {
      const kind: 'hard' | 'soft' | 'policy' = event.data.bounce.type;
      void kind;
      break;
    }
    case 'email.clicked':
      void event.data.click.link;
      break;
    case 'webhook.test':
      void event.data.webhook_id;
      // @ts-expect-error a test event is about an endpoint, not an email
      void event.data.email_id;
      break;
    case 'email.received':
      void event.data.route_id;
      // @ts-expect-error a received event names no recipient
      void event.data.recipient;
      break;
  }
}
