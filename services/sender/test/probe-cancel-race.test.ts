import { startSendingStack, waitForEmail, type SendingStack } from '../../../test/support/sending';
import { SmtpSink } from '../../../test/support/smtp-sink';

const EMAILS = 60;
// The sender's delayed job fires at the scheduled time and claims the email some tens of ms
// later (more under load); cancels are spread ~13 ms apart across that moment, so some land on each side.
const EARLIEST_CANCEL_MS = -100;
const LATEST_CANCEL_MS = 700;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

describe('a cancel racing the sender picking a scheduled email up', () => {
  let sink: SmtpSink;
  let s: SendingStack;
  beforeAll(async () => {
    sink = await new SmtpSink({ starttls: false }).start();
    s = await startSendingStack('cancelrace', { OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sink.port}` });
  });
  afterAll(async () => {
    await s.close();
    await sink.stop();
  });

  test('when cancels arrive around the scheduled time, then each email is either canceled and never sent, or sent with the cancel answered 409', async () => {
    const dueAt = Date.now() + 3_000;
    const ids: string[] = [];
    for (let i = 0; i < EMAILS; i++) {
      const res = await s.api.post('/emails', {
        from: 'hello@acme.test',
        to: `race${i}@example.test`,
        subject: `race ${i}`,
        text: 'hi',
        scheduledAt: new Date(dueAt).toISOString(),
      });
      expect(res.status).toBe(200);
      ids.push(res.body.id);
    }
    const cancels = await Promise.all(
      ids.map(async (id, i) => {
        await sleep(dueAt + EARLIEST_CANCEL_MS + ((LATEST_CANCEL_MS - EARLIEST_CANCEL_MS) * i) / EMAILS - Date.now());
        return s.api.post(`/emails/${id}/cancel`);
      }),
    );
    for (const res of cancels) {
      expect([200, 409]).toContain(res.status);
      if (res.status === 409) expect(res.body).toEqual({ name: 'conflict', message: expect.any(String), statusCode: 409 });
    }
    const sent = cancels.filter((r) => r.status === 409).length;
    await sink.waitFor(sent, 15_000);
    // Anything canceled that was wrongly picked up would arrive by now.
    await sleep(1_500);
    for (const [i, id] of ids.entries()) {
      const email = await waitForEmail(s.api, id, (e) => e.status === 'canceled' || e.status === 'delivered');
      const arrived = sink.messages.filter((m) => m.recipients.includes(`race${i}@example.test`)).length;
      if ((cancels[i] as { status: number }).status === 200) {
        expect({ i, status: email.status, recipients: email.recipients.map((r: { status: string }) => r.status), arrived, events: email.events.length }).toEqual({
          i,
          status: 'canceled',
          recipients: ['canceled'],
          arrived: 0,
          events: 0,
        });
      } else {
        expect({ i, status: email.status, arrived }).toEqual({ i, status: 'delivered', arrived: 1 });
      }
    }
    // Both sides of the race were reached, or the test proves nothing.
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(EMAILS);
  }, 45_000);
});
