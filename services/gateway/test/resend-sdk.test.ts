import { Resend } from 'resend';
import { createKey, signUp, startTestGateway, type TestGateway } from '../../../test/support/gateway';

describe("Resend's own SDK pointed at Mailroom", () => {
  let t: TestGateway;
  let resend: Resend;
  beforeAll(async () => {
    t = await startTestGateway({ label: 'resendsdk' });
    const owner = await signUp(t.api);
    resend = new Resend((await createKey(owner.as, 'sending_access')).token, { baseUrl: t.gateway.url });
  });
  afterAll(() => t.close());

  test('when it sends with attachments, tags, reply-to and headers, then the email is stored as sent', async () => {
    const { data, error } = await resend.emails.send({
      from: 'Acme <hello@acme.test>',
      to: ['alice@example.test'],
      replyTo: 'support@acme.test',
      subject: 'Your invoice',
      html: '<p>Attached.</p>',
      headers: { 'X-Entity-Ref-ID': 'inv-42' },
      tags: [{ name: 'category', value: 'invoice' }],
      attachments: [{ filename: 'invoice.pdf', content: Buffer.from('%PDF-1.4 fake'), contentType: 'application/pdf' }],
    });
    expect(error).toBeNull();
    expect(data?.id).toMatch(/^em_/);
    const email = await t.gateway.ctx.db.email.findUniqueOrThrow({ where: { id: data!.id }, include: { attachments: true } });
    expect(email).toMatchObject({ replyTo: ['support@acme.test'], subject: 'Your invoice', headers: { 'X-Entity-Ref-ID': 'inv-42' } });
    expect(email.attachments.map((a) => [a.filename, a.contentType, Buffer.from(a.content).toString()])).toEqual([['invoice.pdf', 'application/pdf', '%PDF-1.4 fake']]);
  });

  test('when it retries with an idempotency key, then it gets the same id', async () => {
    const body = { from: 'hello@acme.test', to: 'bob@example.test', subject: 'Once', text: 'Only once' };
    const first = await resend.emails.send(body, { idempotencyKey: 'welcome-bob' });
    const again = await resend.emails.send(body, { idempotencyKey: 'welcome-bob' });
    expect(again.data?.id).toBe(first.data?.id);
  });

  test('when it sends a batch, then every id comes back', async () => {
    const { data, error } = await resend.batch.send([
      { from: 'hello@acme.test', to: 'a@example.test', subject: 'One', text: '1' },
      { from: 'hello@acme.test', to: 'b@example.test', subject: 'Two', text: '2' },
    ]);
    expect(error).toBeNull();
    expect(data?.data.map((d) => d.id)).toHaveLength(2);
  });

  test('when the input is invalid, then the SDK surfaces our error name and status', async () => {
    const { data, error } = await resend.emails.send({ from: 'hello@acme.test', to: 'not-an-address', subject: 'x', text: 'y' });
    expect(data).toBeNull();
    expect(error).toMatchObject({ name: 'validation_error', statusCode: 422 });
    expect(error?.message).toContain('to');
  });
});
