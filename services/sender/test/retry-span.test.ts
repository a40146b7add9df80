import { isFinished, startSendingStack, waitForEmail, type SendingStack } from '../../../test/support/sending';
import { SmtpSink } from '../../../test/support/smtp-sink';

// Three retries 3 s apart: a span of 9 s from the first attempt.
const SCHEDULE = '3,3,3';
const FIRST_DELAY_MS = 3_000;
const SPAN_MS = 9_000;

describe('retries against a server that always asks to try again in 1 second', () => {
  const rcptTimes = new Map<string, number[]>();
  let sink: SmtpSink;
  let s: SendingStack;
  beforeAll(async () => {
    sink = await new SmtpSink({
      starttls: false,
      rcpt: (recipient) => {
        rcptTimes.set(recipient, [...(rcptTimes.get(recipient) ?? []), Date.now()]);
        return { code: 451, message: '4.7.1 Try again in 1 second' };
      },
    }).start();
    s = await startSendingStack('retryspan', { OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sink.port}`, SMTP_RETRY_SCHEDULE: SCHEDULE });
  });
  afterAll(async () => {
    await s.close();
    await sink.stop();
  });

  test('when every attempt is deferred, then attempts stay at least the first delay apart and the recipient fails only once the span has passed', async () => {
    const to = 'always-later@example.test';
    const { id } = (await s.api.post('/emails', { from: 'Acme <hello@acme.test>', to, subject: 'Later', text: 'Hi' })).body;

    const email = await waitForEmail(s.api, id, isFinished, 25_000);

    expect(email.status).toBe('failed');
    const times = rcptTimes.get(to) ?? [];
    expect(times.length).toBeGreaterThanOrEqual(4);
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(FIRST_DELAY_MS);

    const sent = email.events.find((e: any) => e.type === 'email.sent');
    const failed = email.events.find((e: any) => e.type === 'email.failed');
    const failedAfterMs = Date.parse(failed.created_at) - Date.parse(sent.created_at);
    expect(failedAfterMs).toBeGreaterThanOrEqual(SPAN_MS);
    expect(failedAfterMs).toBeLessThan(SPAN_MS + FIRST_DELAY_MS + 1_500);
    expect(failed.data).toMatchObject({ attempt: times.length, smtp: { code: 451, enhanced_code: '4.7.1' } });

    // The first attempt's time is kept on the recipient, unchanged by later attempts.
    const recipient = await s.t.gateway.ctx.db.emailRecipient.findFirstOrThrow({ where: { emailId: id } });
    expect(recipient.firstAttemptAt?.toISOString()).toBe(sent.created_at);
    expect(recipient).toMatchObject({ status: 'failed', attempts: times.length, nextAttemptAt: null });
  }, 40_000);
});
