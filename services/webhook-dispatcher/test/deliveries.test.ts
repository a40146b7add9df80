import { createHmac } from 'node:crypto';
import { createRedis, EventQueue, loadConfig, WebhookQueue } from '@mailroom/core';
import { createPool, inTransaction, type Pool, recordAttempts } from '@mailroom/db';
import { createWebhookDeliverer, requestRecovery, type WebhookDeliverer } from '@mailroom/webhooks';
import { Webhook } from 'standardwebhooks';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { TEST_SECRET_KEY, testEnv } from '../../../test/support/gateway';
import { type RunningDispatcher, startDispatcher } from '../src/start-dispatcher';
import {
  appendTestEvents,
  capturingLogger,
  createEndpoint,
  createProject,
  createRoute,
  newSecret,
  Receiver,
  until,
} from './support';

interface AttemptRow {
  event_id: string;
  attempt: number;
  trigger: string;
  success: boolean;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  next_retry_at: Date | null;
  duration_ms: number;
  created_at: Date;
}

describe('the webhook dispatcher', () => {
  let database: TestDatabase;
  let pool: Pool;
  let dispatcher: RunningDispatcher;
  let deliverer: WebhookDeliverer;
  let eventQueue: EventQueue;
  let webhookQueue: WebhookQueue;
  const redis = createRedis('redis://127.0.0.1:6379', 'request');
  const receiver = new Receiver();
  const log = capturingLogger();
  let projectId: string;

  beforeAll(async () => {
    database = await createTestDatabase('whdispatch');
    pool = createPool(database.url, 4);
    const config = loadConfig(
      testEnv(database, {
        ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_RETRY_SCHEDULE: '1,1',
        WEBHOOK_TIMEOUT_SECONDS: '2',
        LEASE_SECONDS: '2',
        RECONCILE_INTERVAL_SECONDS: '1',
        OPS_PORT: '0',
      }),
    );
    await redis.connect();
    await receiver.start();
    dispatcher = await startDispatcher(config, { logger: log.logger });
    deliverer = createWebhookDeliverer({ pool, masterSecret: TEST_SECRET_KEY, config, logger: log.logger });
    await deliverer.start();
    eventQueue = new EventQueue(redis, config.queuePrefix);
    webhookQueue = new WebhookQueue(redis, config.queuePrefix);
    projectId = await createProject(pool);
  });
  afterAll(async () => {
    await dispatcher.stop();
    await deliverer.stop();
    await Promise.all([eventQueue.close(), webhookQueue.close()]);
    redis.disconnect();
    await receiver.stop();
    await pool.end();
    await database.drop();
  });
  beforeEach(() => {
    receiver.answer = () => ({ status: 200, body: 'ok' });
  });

  const emit = async (events: { type: string; data?: object }[], project = projectId) => {
    const ids = await appendTestEvents(pool, project, events);
    await eventQueue.notify();
    return ids;
  };
  const attempts = async (webhookId: string, eventId?: string) =>
    (
      await pool.query<AttemptRow>({
        text: `SELECT * FROM webhook_attempts WHERE webhook_id = $1 AND ($2::text IS NULL OR event_id = $2) ORDER BY id`,
        values: [webhookId, eventId ?? null],
      })
    ).rows;
  const delivery = async (webhookId: string, eventId: string) =>
    (
      await pool.query<{ state: string; attempts: number }>({
        text: 'SELECT state, attempts FROM webhook_deliveries WHERE webhook_id = $1 AND event_id = $2',
        values: [webhookId, eventId],
      })
    ).rows[0];
  const endpoint = async (webhookId: string) =>
    (await pool.query<{ enabled: boolean; disabled_reason: string | null }>({ text: 'SELECT enabled, disabled_reason FROM webhooks WHERE id = $1', values: [webhookId] }))
      .rows[0];
  const urlFor = (tag: string) => `${receiver.url}?${tag}`;

  test('when an event is delivered, then the receiver verifies X-Service-Signature with its own HMAC and webhook-* with standardwebhooks, and the body is the event', async () => {
    const previous = newSecret();
    const { id, secret } = await createEndpoint(pool, projectId, { url: urlFor('sig'), events: ['email.delivered'], previousSecret: previous });
    const [eventId] = await emit([{ type: 'email.delivered', data: { email_id: 'em_sig', subject: 'Grüße' } }]);
    await until(() => receiver.forEvent(eventId!).length === 1, 10_000, 'the delivery');
    const request = receiver.forEvent(eventId!)[0]!;

    const expected = createHmac('sha256', secret).update(request.body).digest('hex');
    expect(request.headers['x-service-signature']).toBe(`sha256=${expected}`);
    const headers = request.headers as Record<string, string>;
    expect(() => new Webhook(secret).verify(request.body, headers)).not.toThrow();
    // Inside the 24 h after a rotation, the previous secret verifies too.
    expect(() => new Webhook(previous).verify(request.body, headers)).not.toThrow();
    expect(() => new Webhook(newSecret()).verify(request.body, headers)).toThrow();
    expect(headers['user-agent']).toBe('Mailroom-Webhooks/1');
    expect(headers['x-service-event-id']).toBe(eventId);
    expect(headers['x-service-event-type']).toBe('email.delivered');
    const body = JSON.parse(request.body);
    expect(body).toEqual({ id: eventId, type: 'email.delivered', created_at: expect.any(String), data: { email_id: 'em_sig', subject: 'Grüße' } });
    await until(async () => (await attempts(id)).length === 1, 5_000, 'the attempt row');
    expect((await attempts(id))[0]).toMatchObject({ attempt: 1, trigger: 'scheduled', success: true, response_status: 200, response_body: 'ok' });
    expect(await delivery(id, eventId!)).toEqual({ state: 'succeeded', attempts: 1 });
  });

  test('when the receiver answers 500, then attempts follow the schedule, each logged with the same webhook-id, and the delivery ends failed', async () => {
    receiver.answer = () => ({ status: 500, body: 'down' });
    const { id } = await createEndpoint(pool, projectId, { url: urlFor('500'), events: ['email.bounced'] });
    const [eventId] = await emit([{ type: 'email.bounced' }]);
    await until(async () => (await delivery(id, eventId!))?.state === 'failed', 15_000, 'the schedule to run out');

    const rows = await attempts(id);
    expect(rows.map((r) => [r.attempt, r.trigger, r.success, r.response_status])).toEqual([
      [1, 'scheduled', false, 500],
      [2, 'scheduled', false, 500],
      [3, 'scheduled', false, 500],
    ]);
    // 1 + 2 entries of the schedule; each retry waited about its delay (jitter ±10 %), the last has none.
    expect(rows[0]!.next_retry_at).not.toBeNull();
    expect(rows[2]!.next_retry_at).toBeNull();
    for (const i of [0, 1]) {
      // Counted from the attempt's end (its answer).
      const delay = rows[i]!.next_retry_at!.getTime() - rows[i]!.created_at.getTime() - rows[i]!.duration_ms;
      expect(delay).toBeGreaterThanOrEqual(900);
      expect(delay).toBeLessThanOrEqual(1100);
      expect(rows[i + 1]!.created_at.getTime()).toBeGreaterThanOrEqual(rows[i]!.next_retry_at!.getTime() - 50);
    }
    expect(receiver.forEvent(eventId!)).toHaveLength(3);
    expect(new Set(receiver.forEvent(eventId!).map((r) => r.headers['webhook-id']))).toEqual(new Set([eventId]));
  });

  test('when the receiver answers 429 with Retry-After, then the next attempt waits that long after the answer (not after the request: a slow 429 does not eat it), rather than the schedule', async () => {
    let calls = 0;
    receiver.answer = () => (++calls === 1 ? { status: 429, headers: { 'retry-after': '3' } } : { status: 204 });
    receiver.delayMs = 1_500;
    try {
      const { id } = await createEndpoint(pool, projectId, { url: urlFor('429'), events: ['email.complained'] });
      const [eventId] = await emit([{ type: 'email.complained' }]);
      await until(async () => (await delivery(id, eventId!))?.state === 'succeeded', 20_000, 'the retry');
      const [first, second] = await attempts(id);
      expect(first!.response_status).toBe(429);
      expect(first!.duration_ms).toBeGreaterThanOrEqual(1_400);
      const answeredAt = first!.created_at.getTime() + first!.duration_ms;
      expect(first!.next_retry_at!.getTime() - answeredAt).toBeGreaterThanOrEqual(3_000);
      expect(second!.created_at.getTime()).toBeGreaterThanOrEqual(answeredAt + 3_000 - 50);
      expect(second).toMatchObject({ attempt: 2, success: true, response_status: 204 });
    } finally {
      receiver.delayMs = 0;
    }
  }, 30_000);

  test('when the receiver answers 410, then the endpoint is disabled as gone and its other pending deliveries stop without an attempt', async () => {
    receiver.answer = () => ({ status: 410 });
    const { id } = await createEndpoint(pool, projectId, { url: urlFor('410'), events: ['email.failed'] });
    const [first] = await emit([{ type: 'email.failed' }]);
    await until(async () => (await attempts(id)).length === 1, 10_000, 'the 410');
    expect(await endpoint(id)).toEqual({ enabled: false, disabled_reason: 'gone' });
    expect(await delivery(id, first!)).toMatchObject({ state: 'failed' });

    // A delivery created before the endpoint was disabled stops when its job comes.
    await pool.query({
      text: `INSERT INTO webhook_deliveries (event_id, webhook_id, project_id) SELECT id, $1, project_id FROM email_events WHERE id = $2`,
      values: [id, (await appendTestEvents(pool, projectId, [{ type: 'email.failed' }]))[0]],
    });
    const stopped = (await pool.query<{ event_id: string }>({ text: `SELECT event_id FROM webhook_deliveries WHERE webhook_id = $1 AND state = 'pending'`, values: [id] })).rows[0]!.event_id;
    await webhookQueue.enqueueNow([{ eventId: stopped, webhookId: id }]);
    await until(async () => (await delivery(id, stopped))?.state === 'failed', 10_000, 'the pending delivery to stop');
    expect(await delivery(id, stopped)).toEqual({ state: 'failed', attempts: 0 });
    expect(receiver.forEvent(stopped)).toHaveLength(0);
  });

  test('when an endpoint has failed for five days without a success, then its next failure disables it as failing, and the reconciler disables one with no attempt', async () => {
    const attempted = await createEndpoint(pool, projectId, { url: urlFor('failing'), events: [] });
    const idle = await createEndpoint(pool, projectId, { url: urlFor('idle'), events: [] });
    const recent = await createEndpoint(pool, projectId, { url: urlFor('recent'), events: [] });
    const [eventId] = await appendTestEvents(pool, projectId, [{ type: 'email.opened' }]);
    // In one transaction, so the scheduled reconciler cannot disable it first: the failure does.
    const disabledByFailure = await inTransaction(pool, async (client) => {
      await client.query({ text: `UPDATE webhooks SET failing_since = now() - interval '5 days 1 hour' WHERE id = $1`, values: [attempted.id] });
      await client.query({ text: 'INSERT INTO webhook_deliveries (event_id, webhook_id, project_id) VALUES ($1, $2, $3)', values: [eventId, attempted.id, projectId] });
      const [row] = await recordAttempts(client, [
        {
          eventId: eventId!, webhookId: attempted.id, eventType: 'email.opened', trigger: 'scheduled', url: urlFor('failing'), responseStatus: 500,
          responseBody: null, durationMs: 3, error: 'HTTP 500.', success: false, nextRetryAt: new Date(Date.now() + 1_000), createdAt: new Date(), leased: true, gone: false,
        },
      ]);
      expect(row).toMatchObject({ attempt: 1, success: false });
      return (await client.query<{ enabled: boolean; disabled_reason: string | null }>({ text: 'SELECT enabled, disabled_reason FROM webhooks WHERE id = $1', values: [attempted.id] })).rows[0];
    });
    expect(disabledByFailure).toEqual({ enabled: false, disabled_reason: 'failing' });

    await pool.query({ text: `UPDATE webhooks SET failing_since = now() - interval '5 days 1 hour' WHERE id = $1`, values: [idle.id] });
    await pool.query({ text: `UPDATE webhooks SET failing_since = now() - interval '4 days' WHERE id = $1`, values: [recent.id] });
    // No event reaches it: only the reconciler (scheduled every second, and run here) disables it.
    await dispatcher.reconcile();
    expect(await endpoint(idle.id)).toEqual({ enabled: false, disabled_reason: 'failing' });
    expect(await endpoint(recent.id)).toEqual({ enabled: true, disabled_reason: null });
    // The disabled endpoint's retry stops without another attempt.
    await webhookQueue.enqueueDue([{ eventId: eventId!, webhookId: attempted.id, dueAt: new Date(Date.now() + 1_000) }]);
    await until(async () => (await delivery(attempted.id, eventId!))?.state === 'failed', 10_000, 'the retry to stop');
    expect(await attempts(attempted.id, eventId)).toHaveLength(1);
    expect(receiver.requests.filter((r) => r.url.endsWith('?failing'))).toHaveLength(0);
  });

  test('when endpoints filter by type, by route, belong to another project or were created after the event, then only the subscribers receive it', async () => {
    const other = await createProject(pool);
    const route = await createRoute(pool, projectId);
    const otherRoute = await createRoute(pool, projectId);
    const all = await createEndpoint(pool, projectId, { url: urlFor('all'), events: ['email.received', 'email.opened'] });
    const typeOnly = await createEndpoint(pool, projectId, { url: urlFor('type'), events: ['email.opened'] });
    const routed = await createEndpoint(pool, projectId, { url: urlFor('route'), events: ['email.received'], routeId: route });
    const foreign = await createEndpoint(pool, other, { url: urlFor('foreign'), events: ['email.received', 'email.opened'] });
    const [onRoute, offRoute, opened] = await emit([
      { type: 'email.received', data: { email_id: 'inb_1', route_id: route } },
      { type: 'email.received', data: { email_id: 'inb_2', route_id: otherRoute } },
      { type: 'email.opened' },
    ]);
    // Created after the events: it receives none of them.
    const late = await createEndpoint(pool, projectId, { url: urlFor('late'), events: ['email.received', 'email.opened'] });
    const [afterLate] = await emit([{ type: 'email.opened' }]);

    await until(() => receiver.forEvent(afterLate!).length === 3, 10_000, 'the last event to reach its three subscribers');
    const deliveredTo = async (webhookId: string) =>
      (await pool.query<{ event_id: string }>({ text: 'SELECT event_id FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY event_id', values: [webhookId] })).rows.map((r) => r.event_id);
    expect(await deliveredTo(all.id)).toEqual([onRoute, offRoute, opened, afterLate].sort());
    expect(await deliveredTo(typeOnly.id)).toEqual([opened, afterLate].sort());
    expect(await deliveredTo(routed.id)).toEqual([onRoute]);
    expect(await deliveredTo(foreign.id)).toEqual([]);
    expect(await deliveredTo(late.id)).toEqual([afterLate]);
    expect(receiver.forEvent(onRoute!)).toHaveLength(2);
    expect(receiver.forEvent(offRoute!)).toHaveLength(1);
  });

  test('when the receiver answers a redirect or a large body, then the redirect is a failure not followed and only 4 KB of the body is kept', async () => {
    receiver.answer = (request) =>
      request.headers['x-service-event-type'] === 'email.sent'
        ? { status: 302, headers: { location: `${receiver.url}?elsewhere` } }
        : { status: 200, body: 'x'.repeat(100_000) };
    const redirected = await createEndpoint(pool, projectId, { url: urlFor('redirect'), events: ['email.sent'] });
    const large = await createEndpoint(pool, projectId, { url: urlFor('large'), events: ['email.delivery_delayed'] });
    const tagged = () => receiver.requests.filter((r) => /\?(redirect|large)$/.test(r.url)).length;
    const before = tagged();
    const [sent, delayed] = await emit([{ type: 'email.sent' }, { type: 'email.delivery_delayed' }]);
    await until(async () => (await attempts(redirected.id, sent)).length === 3 && (await attempts(large.id, delayed)).length === 1, 15_000, 'the attempts');

    const redirects = await attempts(redirected.id, sent);
    expect(redirects.map((r) => [r.success, r.response_status])).toEqual([[false, 302], [false, 302], [false, 302]]);
    expect(redirects[0]!.error).toMatch(/redirects are not followed/);
    const [big] = await attempts(large.id, delayed);
    expect(big).toMatchObject({ success: true, response_status: 200 });
    expect(big!.response_body).toBe('x'.repeat(4096));
    // Three posts of the redirected event and one of the other; nobody followed the Location.
    expect(tagged() - before).toBe(4);
  });

  test('when a failed delivery is replayed after the receiver is fixed, then a manual attempt with the next number succeeds and nothing more is scheduled', async () => {
    receiver.answer = () => ({ status: 503 });
    const { id } = await createEndpoint(pool, projectId, { url: urlFor('replay'), events: ['email.suppressed'] });
    const [eventId] = await emit([{ type: 'email.suppressed' }]);
    await until(async () => (await attempts(id)).length >= 1, 10_000, 'the first failure');
    await pool.query({ text: `UPDATE webhooks SET enabled = false, disabled_reason = 'manual' WHERE id = $1`, values: [id] });
    receiver.answer = () => ({ status: 200, body: 'fixed' });

    const replayed = await deliverer.replay(projectId, id);
    expect(replayed).toMatchObject({ eventId, trigger: 'manual', success: true, responseStatus: 200, responseBody: 'fixed' });
    expect(replayed!.attempt).toBe((await attempts(id)).length);
    expect(await delivery(id, eventId!)).toMatchObject({ state: 'succeeded' });
    // Still disabled; nothing left to replay; another project's replay finds nothing.
    expect(await endpoint(id)).toEqual({ enabled: false, disabled_reason: 'manual' });
    expect(await deliverer.replay(projectId, id)).toBeNull();
    expect(await deliverer.replay(await createProject(pool), id)).toBeNull();
    const count = (await attempts(id)).length;
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await attempts(id)).toHaveLength(count);
  });

  test('when a test is sent, then a signed webhook.test event is delivered now and its attempt returned', async () => {
    const { id, secret } = await createEndpoint(pool, projectId, { url: urlFor('test'), events: ['email.sent'] });
    const attempt = await deliverer.sendTest(projectId, id);
    expect(attempt).toMatchObject({ webhookId: id, eventType: 'webhook.test', attempt: 1, trigger: 'manual', success: true });
    const [request] = receiver.forEvent(attempt.eventId);
    expect(JSON.parse(request!.body)).toMatchObject({ id: attempt.eventId, type: 'webhook.test', data: { webhook_id: id } });
    expect(() => new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>)).not.toThrow();
    await expect(deliverer.sendTest(await createProject(pool), id)).rejects.toMatchObject({ name: 'not_found' });
  });

  test('when recovery is requested after an outage, then every failed event is delivered once more as a manual attempt', async () => {
    receiver.answer = () => ({ status: 500 });
    const since = new Date(Date.now() - 1000);
    const { id } = await createEndpoint(pool, projectId, { url: urlFor('recover'), events: ['email.delivery_delayed'] });
    const ids = await emit(Array.from({ length: 5 }, () => ({ type: 'email.delivery_delayed' })));
    await until(async () => (await Promise.all(ids.map((e) => delivery(id, e)))).every((d) => d?.state === 'failed'), 20_000, 'every delivery to fail');
    receiver.answer = () => ({ status: 200 });
    const toRecover = () => receiver.requests.filter((r) => r.url.endsWith('?recover')).length;
    const before = toRecover();

    expect(await requestRecovery(pool, { projectId: await createProject(pool), webhookId: id, since })).toBeNull();
    expect(await requestRecovery(pool, { projectId, webhookId: id, since })).toBe(5);
    await webhookQueue.wakeDispatcher();
    await until(async () => (await Promise.all(ids.map((e) => delivery(id, e)))).every((d) => d?.state === 'succeeded'), 10_000, 'the recovery');
    for (const eventId of ids) {
      const rows = await attempts(id, eventId);
      expect(rows.map((r) => [r.attempt, r.trigger, r.success])).toEqual([
        [1, 'scheduled', false],
        [2, 'scheduled', false],
        [3, 'scheduled', false],
        [4, 'manual', true],
      ]);
    }
    expect(toRecover() - before).toBe(5);
  });

  test('when OPS_PORT is set, then the dispatcher answers /healthz and /readyz', async () => {
    expect(dispatcher.opsUrl).toBeDefined();
    expect((await fetch(`${dispatcher.opsUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${dispatcher.opsUrl}/readyz`)).status).toBe(200);
  });

  test('when deliveries were made, then no secret appears in the logs or the attempt log', async () => {
    const { secret } = await createEndpoint(pool, projectId, { url: urlFor('secret'), events: ['email.clicked'] });
    const [eventId] = await emit([{ type: 'email.clicked' }]);
    await until(() => receiver.forEvent(eventId!).length === 1, 10_000, 'the delivery');
    const logged = log.lines.join('\n');
    expect(log.lines.length).toBeGreaterThan(0);
    const raw = secret.slice('whsec_'.length);
    expect(logged).not.toContain(raw);
    const { rows } = await pool.query<{ text: string }>({ text: 'SELECT string_agg(row_to_json(a)::text, \'\') AS text FROM webhook_attempts a' });
    expect(rows[0]!.text).not.toContain(raw);
    expect(rows[0]!.text).not.toContain('whsec_');
  });
});
