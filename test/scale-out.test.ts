import { createRedis, EventQueue } from '@mailroom/core';
import { createPool, type Pool } from '@mailroom/db';
import { appendTestEvents, createEndpoint, createProject, Receiver, until } from '../services/webhook-dispatcher/test/support';
import { createTestDatabase, type TestDatabase } from './support/databases';
import { createKey, signUp, startTestGateway, testEnv, type TestGateway } from './support/gateway';
import { ServiceProcess } from './support/service-process';
import { SmtpSink } from './support/smtp-sink';

// Each worker process of these tests, side by side on one PostgreSQL and one Redis prefix.
const PROCESSES = 3;

/** How many times each key occurs, for the keys that occur more than once. */
function repeated(keys: readonly string[]): Record<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return Object.fromEntries([...counts].filter(([, n]) => n > 1));
}

const startAll = (service: string, env: Record<string, string>, ready: string) =>
  Promise.all(Array.from({ length: PROCESSES }, () => ServiceProcess.start(service, env, ready, 30_000)));

describe('several workers on one backlog', () => {
  let database: TestDatabase;
  let pool: Pool;
  const running: ServiceProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('scaleout');
    pool = createPool(database.url, 2);
  });
  afterAll(async () => {
    await Promise.all(running.map((p) => p.stop()));
    await pool.end();
    await database.drop();
  });

  test('when three senders work through one queue, then every email reaches the sink exactly once and is delivered', async () => {
    const sink = await new SmtpSink({ starttls: false }).start();
    // The reconciler every second re-enqueues each due email not yet claimed as a job of its own: senders race for the same emails.
    const env = testEnv(database, { LOG_LEVEL: 'info', OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sink.port}`, SENDER_CONCURRENCY: '4', RECONCILE_INTERVAL_SECONDS: '1' });
    let t: TestGateway | undefined;
    try {
      t = await startTestGateway({ database, env: { ...env, LOG_LEVEL: 'silent' } });
      const owner = await signUp(t.api);
      const api = t.api.as({ token: (await createKey(owner.as)).token });
      running.push(...(await startAll('sender', env, 'sender started')));
      const ids: string[] = [];
      // Six jobs of 20 emails, queued while the senders wait.
      for (let batch = 0; batch < 6; batch++) {
        const sends = Array.from({ length: 20 }, (_, i) => ({ from: 'Acme <hello@acme.test>', to: `user${batch * 20 + i}@example.test`, subject: 'Hi', text: 'Hello' }));
        const res = await api.post('/emails/batch', sends);
        expect(res.status).toBe(200);
        ids.push(...res.body.data.map((d: { id: string }) => d.id));
      }
      const delivered = async () => Number((await pool.query("SELECT count(*) AS n FROM emails WHERE id = ANY($1) AND status = 'delivered'", [ids])).rows[0].n);
      await until(async () => (await delivered()) === ids.length, 25_000, 'every email delivered');

      const keys = sink.messages.flatMap((m) => m.recipients.map((rcpt) => `${/^message-id:\s*(\S+)/im.exec(m.raw.toString('latin1'))?.[1]} ${rcpt}`));
      expect(repeated(keys)).toEqual({});
      expect(keys).toHaveLength(ids.length);
    } finally {
      await Promise.all(running.splice(0).map((p) => p.stop()));
      await t?.close();
      await sink.stop();
    }
  }, 60_000);

  test('when three dispatchers work through one outbox, then every (event, endpoint) is posted exactly once and succeeds', async () => {
    const receiver = await new Receiver().start();
    // Answers take a while, so posts of all three processes overlap.
    receiver.delayMs = 20;
    const env = testEnv(database, { LOG_LEVEL: 'info', ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_CONCURRENCY_PER_ENDPOINT: '2', RECONCILE_INTERVAL_SECONDS: '1' });
    const redis = createRedis(env.REDIS_URL as string, 'request');
    await redis.connect();
    const events = new EventQueue(redis, env.QUEUE_PREFIX as string);
    try {
      const projectId = await createProject(pool);
      const endpoints = await Promise.all(['a', 'b', 'c'].map((name) => createEndpoint(pool, projectId, { url: `${receiver.url}?${name}`, events: ['email.received'] })));
      running.push(...(await startAll('webhook-dispatcher', env, 'webhook dispatcher started')));
      const ids = await appendTestEvents(pool, projectId, Array.from({ length: 60 }, () => ({ type: 'email.received' })));
      await events.notify();
      const succeeded = async () => Number((await pool.query("SELECT count(*) AS n FROM webhook_deliveries WHERE state = 'succeeded'")).rows[0].n);
      await until(async () => (await succeeded()) === ids.length * endpoints.length, 25_000, 'every delivery succeeded');

      const keys = receiver.requests.map((r) => `${String(r.headers['webhook-id'])} ${r.url}`);
      expect(repeated(keys)).toEqual({});
      expect(keys).toHaveLength(ids.length * endpoints.length);
      // WEBHOOK_CONCURRENCY_PER_ENDPOINT holds per process.
      expect(receiver.maxOpen).toBeLessThanOrEqual(PROCESSES * endpoints.length * 2);
    } finally {
      await Promise.all(running.splice(0).map((p) => p.stop()));
      await events.close();
      redis.disconnect();
      await receiver.stop();
    }
  }, 60_000);
});
