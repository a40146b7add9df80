import { Client } from 'pg';
import { migrateDatabase } from '../../packages/db/src/migrate';
import { freePort } from '../support/free-port';
import { apiClient } from '../support/http';
import { type ServiceName, type ServiceProcess, startAllServices } from '../support/service-process';
import { SmtpSink } from '../support/smtp-sink';
import { until } from '../support/until';
import { PrivatePostgres, PrivateRedis } from './private-servers';
import { type Answer, HANG_MS, sinkDeliveries, Traffic, WebhookReceiver } from './traffic';

// Real restarts of PostgreSQL and Redis (private servers of this file) under steady traffic to
// all five services running as processes: nothing acknowledged may be lost or done twice.

const SECRET_KEY = 'chaos-test-secret-key-that-is-long-enough-0123456789';
type Name = ServiceName;
// Traffic before and after each outage, and the outage itself, in ms.
const STEADY_MS = 3_000;
const OUTAGE_MS = 8_000;
// Everything acknowledged must be delivered and recorded within this after the server is back.
const CONVERGE_MS = 30_000;

let pg: PrivatePostgres;
let redis: PrivateRedis;
let sink: SmtpSink;
let receiver: WebhookReceiver;
let env: Record<string, string>;
let urls: { api: string; tracking: string; smtpPort: number; readyz: Record<Name, string> };
let services = new Map<Name, ServiceProcess>();
// Every open and click answered 200 or 302 so far, over all the cases: each owes one event.
const allEngagements: { url: string }[] = [];
let token = '';

async function query<R>(text: string, values: unknown[] = []): Promise<R[]> {
  const client = new Client({ connectionString: pg.url('mailroom') });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as R[];
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  [pg, redis, sink, receiver] = await Promise.all([
    PrivatePostgres.create(),
    PrivateRedis.create(),
    new SmtpSink({ starttls: false }).start(),
    new WebhookReceiver().start(),
  ]);
  await Promise.all([pg.start(), redis.start(false)]);
  await migrateDatabase(pg.url('mailroom'));
  const [api, tracking, smtp, senderOps, inboundOps, dispatcherOps] = await Promise.all(Array.from({ length: 6 }, () => freePort()));
  urls = {
    api: `http://127.0.0.1:${api}`,
    tracking: `http://127.0.0.1:${tracking}`,
    smtpPort: smtp!,
    readyz: {
      gateway: `http://127.0.0.1:${api}/readyz`,
      sender: `http://127.0.0.1:${senderOps}/readyz`,
      'inbound-smtp': `http://127.0.0.1:${inboundOps}/readyz`,
      tracking: `http://127.0.0.1:${tracking}/readyz`,
      'webhook-dispatcher': `http://127.0.0.1:${dispatcherOps}/readyz`,
    },
  };
  env = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: pg.url('mailroom'),
    REDIS_URL: redis.url,
    QUEUE_PREFIX: 'chaos',
    SECRET_KEY,
    API_PORT: String(api),
    PUBLIC_API_URL: urls.api,
    TRACKING_PORT: String(tracking),
    TRACKING_BASE_URL: urls.tracking,
    SMTP_PORT: String(smtp),
    OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
    ALLOW_PRIVATE_NETWORKS: 'true',
    RATE_LIMIT_PER_SECOND: '0',
    LEASE_SECONDS: '3',
    RECONCILE_INTERVAL_SECONDS: '1',
    // Short retries that last far longer than the test, so nothing gives up while a server is away.
    SMTP_RETRY_SCHEDULE: Array(200).fill('1').join(','),
    WEBHOOK_RETRY_SCHEDULE: Array(200).fill('1').join(','),
  };
  services = await startAllServices(env, { sender: senderOps, 'inbound-smtp': inboundOps, 'webhook-dispatcher': dispatcherOps });

  const client = apiClient(urls.api);
  const signup = await client.post('/auth/signup', { email: 'owner@acme.test', password: 'correct horse battery', projectName: 'Acme' });
  expect(signup.status).toBe(201);
  const owner = client.as({ session: signup.body.sessionToken, project: signup.body.project.id });
  token = (await owner.post('/api-keys', { name: 'chaos' })).body.token;
  const as = client.as({ token });
  expect((await as.post('/routes', { match: '*@inbound.test' })).status).toBe(201);
  const events = ['email.sent', 'email.delivered', 'email.delivery_delayed', 'email.opened', 'email.clicked', 'email.received'];
  expect((await as.post('/webhooks', { url: receiver.url, events })).status).toBe(201);
}, 180_000);

afterAll(async () => {
  await Promise.all([...services.values()].map((s) => s.stop()));
  await Promise.all([pg?.remove(), redis?.remove(), sink?.stop(), receiver?.stop()]);
}, 60_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const summary = (answers: readonly Answer[]) => {
  const counts = new Map<string, number>();
  for (const a of answers) {
    // The error's name (HTTP) or the reply's code and enhanced code (SMTP), not the ids of successes.
    const name = a.kind === 'inbound' ? a.body.split(' ').slice(0, 2).join(' ') : a.status >= 400 ? (/"name":"([^"]+)"/.exec(a.body)?.[1] ?? a.body.slice(0, 60)) : '';
    const key = a.status === 0 ? `no answer (${a.body.slice(0, 60)})` : `${a.status} ${name}`.trim();
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return Object.fromEntries(counts);
};

/**
 * Runs traffic, breaks a server with `outage`, and checks everything the services acknowledged:
 * every answer was the contract's (no 500, no hang), every service came back, and every 200 send,
 * 250 message and tracked open or click was delivered or recorded exactly once, and its events
 * reached the webhook receiver.
 */
async function survive(label: string, outage: () => Promise<void>): Promise<Traffic> {
  const traffic = new Traffic({ apiUrl: urls.api, token, smtpPort: urls.smtpPort, trackingBase: urls.tracking, sink, readyz: urls.readyz }, label);
  traffic.start();
  await sleep(STEADY_MS);
  const broken = Date.now();
  await outage();
  const restored = Date.now();
  await sleep(STEADY_MS);
  await traffic.stop();
  allEngagements.push(...traffic.engagements);

  // A client retries a failed send with the same Idempotency-Key once the service is back.
  for (const send of traffic.sends.filter((s) => s.idempotencyKey && !s.id)) {
    await until(async () => (await traffic.attemptSend(send)).status === 200, CONVERGE_MS, `${label}: the retry of ${send.subject}`, 500);
  }

  const answers = [
    ...traffic.sends.flatMap((s) => s.answers),
    ...traffic.inbound.flatMap((i) => (i.answer ? [i.answer] : [])),
    ...traffic.trackingAnswers,
  ];
  const during = answers.filter((a) => a.at >= broken - 1_000 && a.at <= restored + 1_000);
  const report = {
    label,
    outageMs: restored - broken,
    sends: summary(during.filter((a) => a.kind === 'send')),
    inbound: summary(during.filter((a) => a.kind === 'inbound')),
    tracking: summary(during.filter((a) => a.kind === 'open' || a.kind === 'click')),
    slowest: Math.max(0, ...answers.map((a) => a.ms)),
    readyAgainMs: {} as Record<string, number | null>,
  };
  for (const [name, probes] of Object.entries(traffic.readiness)) {
    // From the server's return to the answer of the first 200 after the last failed probe.
    const lastBad = probes.findLastIndex((p) => p.status !== 200);
    const back = lastBad < 0 ? undefined : probes.slice(lastBad + 1).find((p) => p.status === 200);
    report.readyAgainMs[name] = lastBad < 0 ? 0 : back ? Math.max(0, back.at + back.ms - restored) : null;
  }
  console.log(JSON.stringify(report, null, 2));

  // Every answer is the contract's: no 500, nothing without an answer, nothing that hangs.
  const http = answers.filter((a) => a.kind !== 'inbound');
  const failed = http.filter((a) => a.status === 0 || (a.status >= 500 && a.status !== 503));
  // With the services' own error lines, so a 500 in CI names its cause.
  const errorLines = failed.length === 0 ? [] : [...services.values()].flatMap((s) => s.output.filter((line) => line.includes('"component":"errors"')));
  expect([...failed.map((a) => `${a.kind} ${a.status} ${a.body}`), ...errorLines.slice(-5)]).toEqual([]);
  for (const a of http.filter((x) => x.status === 503)) expect(JSON.parse(a.body)).toMatchObject({ name: 'service_unavailable', statusCode: 503 });
  const smtpBad = traffic.inbound.filter((i) => !i.answer || !(i.answer.status === 250 || (i.answer.status >= 400 && i.answer.status < 500)));
  expect(smtpBad.map((i) => `${i.to}: ${i.answer?.status} ${i.answer?.body}`)).toEqual([]);
  expect(answers.filter((a) => a.ms > HANG_MS).map((a) => `${a.kind} ${a.ms} ms`)).toEqual([]);
  for (const [name, service] of services) expect({ name, exitCode: service.child.exitCode }).toEqual({ name, exitCode: null });
  for (const url of Object.values(urls.readyz)) await until(async () => (await fetch(url).catch(() => null))?.status === 200, CONVERGE_MS, `${url} to be ready`, 250);

  // A send answered with an error left nothing behind (else a client retrying without a key sends twice).
  const refused = traffic.sends.filter((s) => !s.idempotencyKey && !s.id).map((s) => s.subject);
  const stored = await query<{ subject: string }>('SELECT subject FROM emails WHERE subject = ANY($1)', [refused]);
  expect(stored.map((r) => r.subject)).toEqual([]);

  // Every acknowledged send reaches the sink exactly once.
  const acked = traffic.sends.filter((s) => s.id).map((s) => `${s.id}@acme.test ${String(s.body.to).toLowerCase()}`);
  await until(() => acked.every((key) => sinkDeliveries(sink).has(key)), CONVERGE_MS, `${label}: every acknowledged send at the sink`, 250).catch((err) => {
    const missing = acked.filter((key) => !sinkDeliveries(sink).has(key));
    throw new Error(`${err}: ${missing.length} of ${acked.length} missing, e.g. ${missing.slice(0, 3).join(', ')}`);
  });
  const twice = [...sinkDeliveries(sink)].filter(([key, count]) => count > 1 && acked.includes(key));
  expect(twice).toEqual([]);

  // Every message answered 250 is stored once, processed, and has its email.received event.
  const accepted = traffic.inbound.filter((i) => i.answer?.status === 250).map((i) => i.messageId);
  const refusedInbound = traffic.inbound.filter((i) => i.answer?.status !== 250).map((i) => i.messageId);
  await until(
    async () => {
      const rows = await query<{ n: string }>(
        `SELECT count(*) AS n FROM received_emails r WHERE r.message_id = ANY($1) AND r.processed_at IS NOT NULL
           AND EXISTS (SELECT 1 FROM email_events e WHERE e.received_email_id = r.id AND e.type = 'email.received')`,
        [accepted],
      );
      return Number(rows[0]?.n) === accepted.length;
    },
    CONVERGE_MS,
    `${label}: every 250-acknowledged message stored and processed`,
    250,
  );
  const storedTwice = await query<{ message_id: string }>('SELECT message_id FROM received_emails WHERE message_id = ANY($1) GROUP BY 1 HAVING count(*) > 1', [accepted]);
  expect(storedTwice).toEqual([]);
  const storedRefused = await query<{ message_id: string }>('SELECT message_id FROM received_emails WHERE message_id = ANY($1)', [refusedInbound]);
  // A message refused with 4xx may still have been stored (a lost reply); it is then delivered twice at worst.
  if (storedRefused.length > 0) console.log(`${label}: ${storedRefused.length} message(s) refused with 4xx were stored anyway`);

  return traffic;
}

/** Every open and click answered so far is one event, and every event reached the receiver. */
async function checkEventsDelivered(label: string): Promise<void> {
  const expected = allEngagements.length;
  let recorded = 0;
  await until(
    async () => {
      const rows = await query<{ n: string }>("SELECT count(*) AS n FROM email_events WHERE type IN ('email.opened', 'email.clicked')");
      recorded = Number(rows[0]?.n);
      return recorded >= expected;
    },
    CONVERGE_MS,
    `${label}: every open and click recorded`,
    250,
  ).catch((err) => {
    throw new Error(`${err}: ${recorded} of ${expected}`);
  });
  expect(recorded).toBe(expected);
  let missing: string[] = [];
  await until(
    async () => {
      const events = await query<{ id: string }>('SELECT id FROM email_events');
      missing = events.map((e) => e.id).filter((id) => !receiver.eventIds.has(id));
      return missing.length === 0;
    },
    CONVERGE_MS,
    `${label}: every event at the webhook receiver`,
    250,
  ).catch((err) => {
    throw new Error(`${err}: ${missing.length} missing, e.g. ${missing.slice(0, 3).join(', ')}`);
  });
}

describe('when PostgreSQL and Redis are restarted under traffic to every service', () => {
  test('when PostgreSQL stops cleanly (fast) and comes back, then nothing acknowledged is lost or doubled', async () => {
    await survive('pg-fast', async () => {
      await pg.stop('fast');
      await sleep(OUTAGE_MS);
      await pg.start();
    });
    await checkEventsDelivered('pg-fast');
  }, 120_000);

  test('when PostgreSQL crashes (immediate) and recovers, then nothing acknowledged is lost or doubled', async () => {
    await survive('pg-crash', async () => {
      await pg.stop('immediate');
      await sleep(OUTAGE_MS);
      await pg.start();
    });
    await checkEventsDelivered('pg-crash');
  }, 120_000);

  test('when Redis dies and comes back empty, then nothing acknowledged is lost or doubled', async () => {
    await survive('redis-empty', async () => {
      await redis.kill();
      await sleep(OUTAGE_MS);
      // Back empty (no RDB, no AOF until now); from here on it keeps an AOF for the next case.
      await redis.start(true);
    });
    await checkEventsDelivered('redis-empty');
  }, 120_000);

  test('when Redis dies and comes back from its append-only file, then nothing acknowledged is lost or doubled', async () => {
    await survive('redis-aof', async () => {
      await redis.kill();
      await sleep(OUTAGE_MS);
      await redis.start(true);
    });
    await checkEventsDelivered('redis-aof');
  }, 120_000);
});
