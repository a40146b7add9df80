import { loadConfig } from '@mailroom/core';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { createKey, signUp, startTestGateway, testEnv, type TestGateway } from '../../../test/support/gateway';
import type { ApiClient } from '../../../test/support/http';
import { waitForEmail } from '../../../test/support/sending';
import { SmtpSink } from '../../../test/support/smtp-sink';
import { until } from '../../../test/support/until';
import { startSender } from '../src/start-sender';

// A sender stopped while an email's first recipients are in flight finishes those transactions
// and starts no others: its stop waits only for what is in flight (the grace period is sized for
// one transaction), and another sender delivers the rest, each recipient once.
const HOLD_MS = 1_500;
let database: TestDatabase;
let sink: SmtpSink;
let t: TestGateway;
let api: ApiClient;
let env: Record<string, string>;

beforeAll(async () => {
  database = await createTestDatabase('stopmidemail');
  sink = await new SmtpSink({ starttls: false, rcptDelayMs: () => HOLD_MS }).start();
  env = testEnv(database, { OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sink.port}`, LEASE_SECONDS: '5', RECONCILE_INTERVAL_SECONDS: '1' });
  t = await startTestGateway({ database, env });
  api = t.api.as({ token: (await createKey((await signUp(t.api)).as)).token });
});
afterAll(async () => {
  await t.close();
  await sink.stop();
  await database.drop();
});

test('when a sender stops with an email half sent, then it finishes the transactions in flight, starts none more, and the next sender sends the rest once', async () => {
  const to = Array.from({ length: 25 }, (_, i) => `r${i}@example.test`);
  const first = await startSender(loadConfig(env));
  const { body } = await api.post('/emails', { from: 'hello@acme.test', to, subject: 'Half', text: 'Hi' });
  // The first transactions are open (their RCPT held), the rest of the recipients not started.
  await until(() => sink.transactions > 0, 10_000, 'the first transactions');
  const stopping = Date.now();
  await first.stop();
  const stopMs = Date.now() - stopping;
  // One round of held transactions, not the whole email's rounds.
  expect(stopMs).toBeLessThan(2 * HOLD_MS + 1_000);
  const started = sink.transactions;
  const halfway = await waitForEmail(api, body.id, () => true);
  const attempted = halfway.recipients.filter((r: { attempts: number }) => r.attempts > 0);
  expect(attempted.length).toBe(started);
  expect(attempted.length).toBeLessThan(to.length);

  const second = await startSender(loadConfig(env));
  try {
    const done = await waitForEmail(api, body.id, (e) => e.status === 'delivered', 30_000);
    expect(done.recipients.every((r: { attempts: number }) => r.attempts === 1)).toBe(true);
    const delivered = sink.messages.filter((m) => m.raw.toString('latin1').includes('Subject: Half')).flatMap((m) => m.recipients);
    expect(delivered.sort()).toEqual([...to].sort());
  } finally {
    await second.stop();
  }
}, 60_000);
