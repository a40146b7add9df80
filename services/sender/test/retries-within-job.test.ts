import { startSendingStack, waitForEmail, type SendingStack } from '../../../test/support/sending';
import { SmtpSink } from '../../../test/support/smtp-sink';

// One email to two recipients: one greylisted (450 once), one whose MX holds its RCPT reply for
// seconds. The greylisted one is retried when its schedule says, while the other is still in
// flight, not once the stalled transaction ends.
const STALL_MS = 8_000;
let sink: SmtpSink;
let s: SendingStack;

beforeAll(async () => {
  sink = await new SmtpSink({
    starttls: false,
    rcpt: (recipient, attempt) => (recipient.startsWith('grey@') && attempt === 1 ? { code: 450, message: '4.7.1 Greylisted, try again' } : { code: 250, message: 'OK' }),
    rcptDelayMs: (recipient) => (recipient.startsWith('stall@') ? STALL_MS : 0),
  }).start();
  s = await startSendingStack('withinjob', { OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sink.port}`, SMTP_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1,1,1,1,1,1,1,1' });
});
afterAll(async () => {
  await s.close();
  await sink.stop();
});

test('when a co-recipient’s MX stalls, then a deferred recipient is retried on its schedule within the job, and the stalled one still completes once', async () => {
  const { body } = await s.api.post('/emails', { from: 'hello@acme.test', to: ['grey@example.test', 'stall@example.test'], subject: 'Both', text: 'Hi' });
  const recipient = (email: any, address: string) => email.recipients.find((r: any) => r.email === address);
  const early = await waitForEmail(s.api, body.id, (e) => recipient(e, 'grey@example.test')?.status === 'delivered', STALL_MS - 2_000);
  expect(recipient(early, 'grey@example.test')).toMatchObject({ status: 'delivered', attempts: 2 });
  // The stalled transaction has not ended yet.
  expect(recipient(early, 'stall@example.test').status).not.toBe('delivered');

  const done = await waitForEmail(s.api, body.id, (e) => e.status === 'delivered', STALL_MS + 10_000);
  expect(recipient(done, 'stall@example.test')).toMatchObject({ status: 'delivered', attempts: 1 });
  expect(done.events.filter((e: any) => e.type === 'email.sent').map((e: any) => e.data.recipient).sort()).toEqual(['grey@example.test', 'stall@example.test']);
  expect(sink.messages.filter((m) => m.raw.toString('latin1').includes('Subject: Both')).flatMap((m) => m.recipients).sort()).toEqual(['grey@example.test', 'stall@example.test']);
}, 40_000);
