import { startSendingStack, waitForEmail, type SendingStack } from '../support/sending';
import { SmtpSink } from '../support/smtp-sink';
import { PrivateRedis } from './private-servers';

// POST /emails while the gateway's Redis (a private one) is frozen (SIGSTOP: connections stay
// open, nothing is answered). The email is committed in PostgreSQL before the answer, so a 200
// is honest: the enqueue that cannot reach Redis is left to the reconciler. The rate limiter
// counts in memory meanwhile. Pinned here: an answer within the timeouts, the contract's JSON,
// and each acknowledged email delivered exactly once after Redis is back.

// The answer waits 0.5 s at most for the API key's revocation epoch (then asks PostgreSQL) and
// 0.5 s for the rate limiter's count, or 1 s behind a count in flight (then counts in memory);
// it never waits for the enqueue. Before, those waits were the connection's 2 s command timeout
// each, and the answers came after 4, 6 and 8 s.
const ANSWER_WITHIN_MS = 3_000;
// How long Redis stays frozen after the answers: past the enqueues' 2 s command timeout, so
// the reconciler has work to find.
const FROZEN_AFTER_MS = 4_000;

let redis: PrivateRedis;
let sink: SmtpSink;
let s: SendingStack;

beforeAll(async () => {
  [redis, sink] = await Promise.all([PrivateRedis.create(), new SmtpSink({ starttls: false }).start()]);
  await redis.start(false);
  s = await startSendingStack('redis_frozen', {
    REDIS_URL: redis.url,
    OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
    RATE_LIMIT_PER_SECOND: '50',
    LEASE_SECONDS: '2',
    RECONCILE_INTERVAL_SECONDS: '1',
  });
}, 60_000);

afterAll(async () => {
  redis?.thaw();
  await s?.close();
  await Promise.all([sink?.stop(), redis?.remove()]);
}, 60_000);

async function timed(path: string, body: unknown, headers: Record<string, string> = {}) {
  const started = Date.now();
  const res = await s.api.post(path, body, { headers });
  return { status: res.status, body: res.body, ratelimit: res.headers.get('ratelimit-limit'), ms: Date.now() - started };
}

test('when Redis is frozen, then POST /emails answers 200 with the id within seconds (rate limit counted in memory), and once Redis is back each email is delivered exactly once', async () => {
  // Warm: the API key is verified and cached, the limiter has counted in Redis.
  expect((await timed('/emails', { from: 'a@acme.test', to: 'warm@example.test', subject: 'warm', text: 'x' })).status).toBe(200);
  await sink.waitFor(1, 15_000);

  redis.freeze();
  let answers: Awaited<ReturnType<typeof timed>>[];
  try {
    answers = await Promise.all([
      // A plain send (group commit), one with an Idempotency-Key and an attachment (a transaction
      // of its own), and a batch.
      timed('/emails', { from: 'a@acme.test', to: 'plain@example.test', subject: 'plain', text: 'x' }),
      timed(
        '/emails',
        { from: 'a@acme.test', to: 'keyed@example.test', subject: 'keyed', text: 'x', attachments: [{ filename: 'a.txt', content: 'aGk=' }] },
        { 'idempotency-key': 'frozen-redis-1' },
      ),
      timed('/emails/batch', [
        { from: 'a@acme.test', to: 'batch-1@example.test', subject: 'batch 1', text: 'x' },
        { from: 'a@acme.test', to: 'batch-2@example.test', subject: 'batch 2', text: 'x' },
      ]),
    ]);
    await new Promise((resolve) => setTimeout(resolve, FROZEN_AFTER_MS));
  } finally {
    redis.thaw();
  }

  for (const answer of answers) {
    expect(answer).toMatchObject({ status: 200, ratelimit: '50' });
    expect(answer.ms).toBeLessThan(ANSWER_WITHIN_MS);
  }
  const [plain, keyed, batch] = answers as [(typeof answers)[0], (typeof answers)[0], (typeof answers)[0]];
  expect(plain.body).toEqual({ id: expect.stringMatching(/^em_/), unsigned: true });
  expect(keyed.body).toEqual({ id: expect.stringMatching(/^em_/), unsigned: true });
  expect(batch.body).toEqual({ data: [{ id: expect.stringMatching(/^em_/), unsigned: true }, { id: expect.stringMatching(/^em_/), unsigned: true }] });
  const ids = [plain.body.id, keyed.body.id, ...batch.body.data.map((d: { id: string }) => d.id)] as string[];

  // Delivered once each (the warm-up's message first): whether the job written to the frozen
  // socket arrives or the reconciler re-enqueues the email, the sender's claim sends it once.
  for (const id of ids) expect((await waitForEmail(s.api, id, (e) => e.status === 'delivered', 30_000)).status).toBe('delivered');
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const recipients = sink.messages.flatMap((m) => m.recipients).sort();
  expect(recipients).toEqual(['batch-1@example.test', 'batch-2@example.test', 'keyed@example.test', 'plain@example.test', 'warm@example.test']);
  // The retry a client makes with the same key answers the same id and sends nothing again.
  const retried = await timed(
    '/emails',
    { from: 'a@acme.test', to: 'keyed@example.test', subject: 'keyed', text: 'x', attachments: [{ filename: 'a.txt', content: 'aGk=' }] },
    { 'idempotency-key': 'frozen-redis-1' },
  );
  expect(retried).toMatchObject({ status: 200, body: { id: keyed.body.id } });
}, 90_000);
