import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createRedis, EventQueue, loadConfig } from '@mailroom/core';
import { createPool, type Pool } from '@mailroom/db';
import { Webhook } from 'standardwebhooks';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { createKey, signUp, testEnv } from '../../../test/support/gateway';
import { apiClient, type ApiClient } from '../../../test/support/http';
import { type RunningDispatcher, startDispatcher } from '../../webhook-dispatcher/src/start-dispatcher';
import { appendTestEvents, capturingLogger, type ReceivedRequest, Receiver, until } from '../../webhook-dispatcher/test/support';
import { EVENT_PAYLOADS } from '../src/openapi/event-payloads';
import { type RunningGateway, startGateway } from '../src/start-gateway';

/** X-Service-Signature checked the way a generic receiver does it (GitHub's scheme), with no Mailroom code. */
function verifyServiceSignature(request: ReceivedRequest, secret: string): boolean {
  const header = String(request.headers['x-service-signature'] ?? '');
  const expected = `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(request.body).digest('hex')}`;
  return header.length === expected.length && timingSafeEqual(Buffer.from(header), Buffer.from(expected));
}

const standardHeaders = (request: ReceivedRequest) => ({
  'webhook-id': String(request.headers['webhook-id']),
  'webhook-timestamp': String(request.headers['webhook-timestamp']),
  'webhook-signature': String(request.headers['webhook-signature']),
});

describe('webhook deliveries through the API: test, replay, recover, the attempt log', () => {
  let database: TestDatabase;
  let gateway: RunningGateway;
  let dispatcher: RunningDispatcher;
  let pool: Pool;
  let api: ApiClient;
  let other: ApiClient;
  let projectId: string;
  let eventQueue: EventQueue;
  const redis = createRedis('redis://127.0.0.1:6379', 'request');
  const receiver = new Receiver();
  const log = capturingLogger();
  const secrets: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('webhooks_delivery');
    // Retries a second apart, so a schedule runs out within the test.
    const config = loadConfig(
      testEnv(database, { ALLOW_SIGNUP: 'true', ALLOW_PRIVATE_NETWORKS: 'true', LOG_LEVEL: 'debug', WEBHOOK_RETRY_SCHEDULE: '1,1', WEBHOOK_TIMEOUT_SECONDS: '2', LEASE_SECONDS: '2', RECONCILE_INTERVAL_SECONDS: '1' }),
    );
    await receiver.start();
    gateway = await startGateway(config, { host: '127.0.0.1', logger: log.logger });
    dispatcher = await startDispatcher(config, { logger: log.logger });
    pool = createPool(database.url, 2);
    await redis.connect();
    eventQueue = new EventQueue(redis, config.queuePrefix);
    const owner = await signUp(apiClient(gateway.url));
    projectId = owner.projectId;
    api = apiClient(gateway.url, { token: (await createKey(owner.as)).token });
    other = apiClient(gateway.url, { token: (await createKey((await signUp(apiClient(gateway.url))).as)).token });
  });
  afterAll(async () => {
    await dispatcher.stop();
    await gateway.stop();
    await eventQueue.close();
    redis.disconnect();
    await receiver.stop();
    await pool.end();
    await database.drop();
  });
  beforeEach(() => {
    receiver.answer = () => ({ status: 200, body: 'ok' });
  });

  // Endpoints only for test deliveries subscribe to a type no test emits; each emitting test has its own type.
  const createEndpoint = async (path: string, events = ['email.sent']) => {
    const res = await api.post('/webhooks', { url: `${receiver.url}/${path}`, events });
    expect(res.status).toBe(201);
    secrets.push(res.body.secret);
    return res.body as { id: string; secret: string; url: string };
  };
  const forEvent = (eventId: string) => receiver.forEvent(eventId);

  /** Appends events as a producer does (one transaction, then the notice). */
  const emit = async (count: number, type: 'email.received' | 'email.complained' | 'email.bounced') => {
    const ids = await appendTestEvents(pool, projectId, Array.from({ length: count }, () => ({ type })));
    await eventQueue.notify();
    return ids;
  };

  test('when a test event is sent, then it is signed as DESIGN §5 says, verifiable with node:crypto and standardwebhooks, and logged', async () => {
    const endpoint = await createEndpoint('signed');
    const res = await api.post(`/webhooks/${endpoint.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'webhook_attempt',
      id: expect.stringMatching(/^wha_/),
      eventId: expect.stringMatching(/^evt_/),
      eventType: 'webhook.test',
      attempt: 1,
      trigger: 'manual',
      url: endpoint.url,
      responseStatus: 200,
      responseBody: 'ok',
      durationMs: expect.any(Number),
      error: null,
      success: true,
      createdAt: expect.any(String),
      nextRetryAt: null,
    });
    const [request] = forEvent(res.body.eventId);
    expect(forEvent(res.body.eventId)).toHaveLength(1);
    if (!request) throw new Error('no request');
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Mailroom-Webhooks/1',
      'x-service-event-id': res.body.eventId,
      'x-service-event-type': 'webhook.test',
      'webhook-id': res.body.eventId,
    });
    expect(Math.abs(Number(request.headers['x-service-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(request.headers['webhook-timestamp']).toBe(request.headers['x-service-timestamp']);
    // The body is the event in its one form, as the OpenAPI document describes it.
    const body = JSON.parse(request.body);
    expect(EVENT_PAYLOADS.get('webhook.test')?.safeParse(body).success).toBe(true);
    expect(body).toMatchObject({ id: res.body.eventId, type: 'webhook.test', data: { webhook_id: endpoint.id } });

    expect(verifyServiceSignature(request, endpoint.secret)).toBe(true);
    expect(() => new Webhook(endpoint.secret).verify(request.body, standardHeaders(request))).not.toThrow();
    // A tampered body, a wrong secret, and an old timestamp all fail.
    const tampered = { ...request, body: request.body.replace('webhook.test', 'webhook.tesT') };
    expect(verifyServiceSignature(tampered, endpoint.secret)).toBe(false);
    expect(() => new Webhook(endpoint.secret).verify(tampered.body, standardHeaders(request))).toThrow();
    const wrong = `whsec_${randomBytes(32).toString('base64')}`;
    expect(verifyServiceSignature(request, wrong)).toBe(false);
    expect(() => new Webhook(wrong).verify(request.body, standardHeaders(request))).toThrow();
    const later = jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 10 * 60_000);
    try {
      expect(() => new Webhook(endpoint.secret).verify(request.body, standardHeaders(request))).toThrow(/timestamp/i);
    } finally {
      later.mockRestore();
    }

    const attempts = await api.get(`/webhooks/${endpoint.id}/attempts`);
    expect(attempts.body).toEqual({ object: 'list', data: [res.body], hasMore: false });
  });

  test('when the secret is rotated, then both secrets verify webhook-signature, and X-Service-Signature uses the new one', async () => {
    const endpoint = await createEndpoint('rotated');
    const rotated = await api.post(`/webhooks/${endpoint.id}/rotate-secret`);
    secrets.push(rotated.body.secret);
    const res = await api.post(`/webhooks/${endpoint.id}/test`);
    const [request] = forEvent(res.body.eventId);
    if (!request) throw new Error('no request');
    const entries = String(request.headers['webhook-signature']).split(' ');
    expect(entries).toHaveLength(2);
    expect(entries.every((e) => e.startsWith('v1,'))).toBe(true);
    expect(() => new Webhook(rotated.body.secret).verify(request.body, standardHeaders(request))).not.toThrow();
    expect(() => new Webhook(endpoint.secret).verify(request.body, standardHeaders(request))).not.toThrow();
    expect(verifyServiceSignature(request, rotated.body.secret)).toBe(true);
    expect(verifyServiceSignature(request, endpoint.secret)).toBe(false);
  });

  test('when a receiver fails every scheduled attempt, then all are logged; fixed, a replay succeeds as the next manual attempt and a second finds nothing', async () => {
    const endpoint = await createEndpoint('replay', ['email.received']);
    receiver.answer = () => ({ status: 500, body: 'down' });
    const [eventId] = await emit(1, 'email.received');
    if (!eventId) throw new Error('no event');
    // 1 + 2 retries (WEBHOOK_RETRY_SCHEDULE=1,1), then the delivery has failed.
    await until(async () => (await api.get(`/webhooks/${endpoint.id}/attempts?eventId=${eventId}`)).body.data.length === 3 && (await deliveryState(eventId, endpoint.id)) === 'failed', 20_000, 'three failed attempts');
    const log1 = (await api.get(`/webhooks/${endpoint.id}/attempts?event_id=${eventId}`)).body.data;
    expect(log1.map((a: { attempt: number; trigger: string; success: boolean; responseStatus: number; responseBody: string }) => [a.attempt, a.trigger, a.success, a.responseStatus, a.responseBody])).toEqual([
      [3, 'scheduled', false, 500, 'down'],
      [2, 'scheduled', false, 500, 'down'],
      [1, 'scheduled', false, 500, 'down'],
    ]);
    expect(log1[0].nextRetryAt).toBeNull();
    expect(log1[2].nextRetryAt).not.toBeNull();

    receiver.answer = () => ({ status: 204 });
    const replay = await api.post(`/webhooks/${endpoint.id}/replay`);
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ object: 'webhook_attempt', eventId, attempt: 4, trigger: 'manual', success: true, responseStatus: 204 });
    expect(forEvent(eventId)).toHaveLength(4);
    expect(new Set(forEvent(eventId).map((r) => r.headers['webhook-id']))).toEqual(new Set([eventId]));
    const again = await api.post(`/webhooks/${endpoint.id}/replay`);
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ name: 'not_found', message: expect.stringContaining('Nothing to replay') });
  });

  test('when two replays of one endpoint arrive at once, then one delivers and the other is a 409: the event is posted once', async () => {
    const endpoint = await createEndpoint('replayrace');
    receiver.answer = () => ({ status: 500, body: 'down' });
    const failed = await api.post(`/webhooks/${endpoint.id}/test`);
    expect(failed.body).toMatchObject({ success: false, attempt: 1 });
    receiver.answer = () => ({ status: 200, body: 'ok' });
    // The first replay's POST takes a moment: the second arrives while it is in progress.
    receiver.delayMs = 400;
    try {
      const answers = await Promise.all([api.post(`/webhooks/${endpoint.id}/replay`), api.post(`/webhooks/${endpoint.id}/replay`)]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
      expect(answers.find((a) => a.status === 409)?.body).toMatchObject({ name: 'conflict', statusCode: 409 });
      expect(answers.find((a) => a.status === 200)?.body).toMatchObject({ eventId: failed.body.eventId, attempt: 2, trigger: 'manual', success: true });
    } finally {
      receiver.delayMs = 0;
    }
    expect(forEvent(failed.body.eventId)).toHaveLength(2);
    // Once it answered, the next replay finds the event delivered.
    expect((await api.post(`/webhooks/${endpoint.id}/replay`)).status).toBe(404);
  });

  test('when a recover arrives while a replay of the same endpoint is posting, then the recover is a 409 and the replayed event is posted once', async () => {
    const endpoint = await createEndpoint('replayrecover');
    receiver.answer = () => ({ status: 500, body: 'down' });
    const failed = await api.post(`/webhooks/${endpoint.id}/test`);
    expect(failed.body).toMatchObject({ success: false, attempt: 1 });
    receiver.answer = () => ({ status: 200, body: 'ok' });
    receiver.delayMs = 600;
    try {
      const replaying = api.post(`/webhooks/${endpoint.id}/replay`);
      await until(async () => forEvent(failed.body.eventId).length === 2, 5_000, 'the replay posting');
      const recover = await api.post(`/webhooks/${endpoint.id}/recover`, { since: new Date(Date.now() - 60_000).toISOString() });
      expect(recover.status).toBe(409);
      expect(recover.body).toMatchObject({ name: 'conflict', message: expect.stringContaining('in progress') });
      expect((await replaying).body).toMatchObject({ eventId: failed.body.eventId, success: true, trigger: 'manual' });
    } finally {
      receiver.delayMs = 0;
    }
    // Once the replay answered, a recover finds nothing of it left to deliver.
    expect((await api.post(`/webhooks/${endpoint.id}/recover`, { since: new Date(Date.now() - 60_000).toISOString() })).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(forEvent(failed.body.eventId)).toHaveLength(2);
  });

  test('when an endpoint is disabled, then a replay still delivers, and it stays disabled', async () => {
    const endpoint = await createEndpoint('disabled');
    receiver.answer = () => ({ status: 503, body: 'busy' });
    const failed = await api.post(`/webhooks/${endpoint.id}/test`);
    expect(failed.body).toMatchObject({ success: false, responseStatus: 503, attempt: 1 });
    await api.patch(`/webhooks/${endpoint.id}`, { enabled: false });
    receiver.answer = () => ({ status: 200, body: 'ok' });
    const replay = await api.post(`/webhooks/${endpoint.id}/replay`);
    expect(replay.body).toMatchObject({ eventId: failed.body.eventId, attempt: 2, trigger: 'manual', success: true });
    expect((await api.get(`/webhooks/${endpoint.id}`)).body).toMatchObject({ enabled: false, disabledReason: 'manual' });
  });

  test('when the attempt log is filtered and paged, then success and eventId select, limit and after page, newest first', async () => {
    const endpoint = await createEndpoint('log');
    receiver.answer = () => ({ status: 500 });
    const failures = [await api.post(`/webhooks/${endpoint.id}/test`), await api.post(`/webhooks/${endpoint.id}/test`)];
    receiver.answer = () => ({ status: 200 });
    const success = await api.post(`/webhooks/${endpoint.id}/test`);
    const ids = [failures[0]?.body.id, failures[1]?.body.id, success.body.id];
    const all = await api.get(`/webhooks/${endpoint.id}/attempts`);
    expect(all.body.data.map((a: { id: string }) => a.id)).toEqual([...ids].reverse());
    expect((await api.get(`/webhooks/${endpoint.id}/attempts?success=false`)).body.data.map((a: { id: string }) => a.id)).toEqual([ids[1], ids[0]]);
    expect((await api.get(`/webhooks/${endpoint.id}/attempts?success=true`)).body.data.map((a: { id: string }) => a.id)).toEqual([ids[2]]);
    expect((await api.get(`/webhooks/${endpoint.id}/attempts?eventId=${success.body.eventId}`)).body.data.map((a: { id: string }) => a.id)).toEqual([ids[2]]);
    const page = await api.get(`/webhooks/${endpoint.id}/attempts?limit=2`);
    expect(page.body).toMatchObject({ hasMore: true, data: [{ id: ids[2] }, { id: ids[1] }] });
    expect((await api.get(`/webhooks/${endpoint.id}/attempts?limit=2&after=${ids[1]}`)).body).toMatchObject({ hasMore: false, data: [{ id: ids[0] }] });
    expect((await api.get(`/webhooks/${endpoint.id}/attempts?success=maybe`)).status).toBe(422);
    expect((await api.get(`/webhooks/${endpoint.id}/attempts?limit=500`)).status).toBe(422);
  });

  test('when recover is asked with a bad since, then 422: missing, not ISO 8601, in the future, more than 14 days back', async () => {
    const endpoint = await createEndpoint('recover-bad');
    const day = 86_400_000;
    for (const [body, words] of [
      [{}, /Missing required field `since`/],
      [{ since: 'yesterday' }, /ISO 8601/],
      [{ since: new Date(Date.now() + 60_000).toISOString() }, /future/],
      [{ since: new Date(Date.now() - 15 * day).toISOString() }, /14 days/],
    ] as const) {
      const res = await api.post(`/webhooks/${endpoint.id}/recover`, body);
      expect({ status: res.status, message: res.body.message }).toEqual({ status: 422, message: expect.stringMatching(words) });
    }
    expect((await api.post(`/webhooks/${endpoint.id}/recover`, { since: new Date(Date.now() - 13 * day).toISOString() })).status).toBe(202);
    // RFC 3339's other spellings: no seconds, lower-case t and z, an offset.
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    for (const since of [hourAgo.slice(0, 16) + 'Z', hourAgo.toLowerCase(), hourAgo.replace('Z', '+00:00')]) {
      const res = await api.post(`/webhooks/${endpoint.id}/recover`, { since });
      expect([since, res.status, res.body.since]).toEqual([since, 202, expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)]);
    }
  });

  test('when a receiver was down until its schedule ran out, then recover delivers every missed event once, as manual attempts', async () => {
    const endpoint = await createEndpoint('recover', ['email.complained']);
    const since = new Date(Date.now() - 1000).toISOString();
    receiver.answer = () => ({ status: 500 });
    const events = await emit(3, 'email.complained');
    await until(async () => (await Promise.all(events.map((e) => deliveryState(e, endpoint.id)))).every((s) => s === 'failed'), 20_000, 'the schedule to run out');
    receiver.answer = () => ({ status: 200, body: 'ok' });
    const res = await api.post(`/webhooks/${endpoint.id}/recover`, { since });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ object: 'webhook_recovery', webhookId: endpoint.id, since: new Date(since).toISOString(), events: 3 });
    await until(async () => (await Promise.all(events.map((e) => deliveryState(e, endpoint.id)))).every((s) => s === 'succeeded'), 20_000, 'recovery');
    for (const eventId of events) {
      const attempts = (await api.get(`/webhooks/${endpoint.id}/attempts?eventId=${eventId}`)).body.data;
      expect(attempts.map((a: { attempt: number; trigger: string; success: boolean }) => [a.attempt, a.trigger, a.success])).toEqual([
        [4, 'manual', true],
        [3, 'scheduled', false],
        [2, 'scheduled', false],
        [1, 'scheduled', false],
      ]);
      expect(forEvent(eventId)).toHaveLength(4);
    }
    // Nothing failed since: a second recover marks nothing.
    expect((await api.post(`/webhooks/${endpoint.id}/recover`, { since })).body.events).toBe(0);
  });

  test('when an endpoint was disabled while events happened, then re-enabling does not send them, and recover delivers them once as manual attempts', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    // Another endpoint of the same type shows when the fan-out has passed an event.
    await createEndpoint('gap-witness', ['email.bounced']);
    const fannedOut = (eventIds: string[]) => until(() => eventIds.every((e) => forEvent(e).some((r) => r.url.endsWith('/gap-witness'))), 20_000, 'the fan-out');
    const [beforeCreation] = await emit(1, 'email.bounced');
    const endpoint = await createEndpoint('gap', ['email.bounced']);
    const toGap = (eventId: string) => forEvent(eventId).filter((r) => r.url.endsWith('/gap'));
    expect((await api.patch(`/webhooks/${endpoint.id}`, { enabled: false })).body).toMatchObject({ enabled: false });
    const whileDisabled = await emit(2, 'email.bounced');
    await fannedOut([beforeCreation as string, ...whileDisabled]);
    expect((await api.patch(`/webhooks/${endpoint.id}`, { enabled: true })).body).toMatchObject({ enabled: true });
    const [afterEnabling] = await emit(1, 'email.bounced');
    await until(() => toGap(afterEnabling as string).length === 1, 20_000, 'the event after re-enabling');
    for (const eventId of [beforeCreation as string, ...whileDisabled]) expect(toGap(eventId)).toHaveLength(0);

    const res = await api.post(`/webhooks/${endpoint.id}/recover`, { since });
    expect(res.status).toBe(202);
    // The two of the gap: not the one before the endpoint existed, nor the one it received.
    expect(res.body.events).toBe(2);
    await until(() => whileDisabled.every((e) => toGap(e).length === 1), 20_000, 'the recovered events');
    for (const eventId of whileDisabled) {
      const attempts = (await api.get(`/webhooks/${endpoint.id}/attempts?eventId=${eventId}`)).body.data;
      expect(attempts.map((a: { attempt: number; trigger: string; success: boolean }) => [a.attempt, a.trigger, a.success])).toEqual([[1, 'manual', true]]);
      expect(JSON.parse(toGap(eventId)[0]?.body ?? '{}')).toMatchObject({ id: eventId, type: 'email.bounced' });
    }
    expect((await api.post(`/webhooks/${endpoint.id}/recover`, { since })).body.events).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(toGap(beforeCreation as string)).toHaveLength(0);
    expect(toGap(afterEnabling as string)).toHaveLength(1);
  });

  test("when another project's endpoint is named, then test, replay, recover, attempts and rotate-secret are 404 and nothing is sent", async () => {
    const endpoint = await createEndpoint('isolated');
    const before = receiver.requests.length;
    const calls: Array<[string, string, unknown?]> = [
      ['POST', `/webhooks/${endpoint.id}/test`],
      ['POST', `/webhooks/${endpoint.id}/replay`],
      ['POST', `/webhooks/${endpoint.id}/recover`, { since: new Date(Date.now() - 60_000).toISOString() }],
      ['GET', `/webhooks/${endpoint.id}/attempts`],
      ['POST', `/webhooks/${endpoint.id}/rotate-secret`],
    ];
    for (const [method, path, body] of calls) {
      const res = await other.request(method, path, { body });
      expect({ path, status: res.status, name: res.body.name }).toEqual({ path, status: 404, name: 'not_found' });
    }
    expect(receiver.requests.length).toBe(before);
  });

  describe("the README's receiver", () => {
    const readme = readFileSync(join(__dirname, '../../../README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('#### Verifying a delivery'));
    const snippet = section.match(/```js\n([\s\S]*?)```/)?.[1] ?? '';
    const children: ChildProcess[] = [];
    afterAll(() => {
      for (const child of children) child.kill();
    });

    /** Runs the snippet as written, with the secret and check it is given, on a free port; answers its URL. */
    const runSnippet = async (secret: string, verify: 'standard-webhooks' | 'x-service-signature'): Promise<string> => {
      const port = await new Promise<number>((resolve) => {
        const probe = createServer().listen(0, '127.0.0.1', () => {
          const { port } = probe.address() as { port: number };
          probe.close(() => resolve(port));
        });
      });
      // From this folder, so `standardwebhooks` resolves as a receiver's own dependency would.
      const child = spawn(process.execPath, ['--input-type=module', '-e', snippet], {
        cwd: __dirname,
        env: { PATH: process.env.PATH, MAILROOM_WEBHOOK_SECRET: secret, PORT: String(port), VERIFY: verify },
        stdio: 'ignore',
      });
      children.push(child);
      await until(() => fetch(`http://127.0.0.1:${port}/`, { method: 'POST' }).then(() => true, () => false), 10_000, 'the snippet to listen');
      return `http://127.0.0.1:${port}/mailroom`;
    };

    const testThrough = async (webhookId: string, url: string) => {
      await api.patch(`/webhooks/${webhookId}`, { url });
      return (await api.post(`/webhooks/${webhookId}/test`)).body as { success: boolean; responseStatus: number };
    };

    test('when Mailroom delivers to it, then either check accepts the right secret and refuses a wrong one; after a rotation the old secret passes only webhook-signature', async () => {
      expect(snippet).toContain("from 'standardwebhooks'");
      const endpoint = (await api.post('/webhooks', { url: 'http://127.0.0.1:9/', events: ['email.sent'] })).body;
      secrets.push(endpoint.secret);
      const wrong = `whsec_${randomBytes(32).toString('base64')}`;
      for (const verify of ['standard-webhooks', 'x-service-signature'] as const) {
        expect({ verify, ...(await testThrough(endpoint.id, await runSnippet(endpoint.secret, verify))) }).toMatchObject({ verify, success: true, responseStatus: 204 });
        expect({ verify, ...(await testThrough(endpoint.id, await runSnippet(wrong, verify))) }).toMatchObject({ verify, success: false, responseStatus: 401 });
      }
      const rotated = (await api.post(`/webhooks/${endpoint.id}/rotate-secret`)).body;
      secrets.push(rotated.secret);
      // A receiver still on the old secret keeps working with Standard Webhooks for the 24 hours.
      expect(await testThrough(endpoint.id, await runSnippet(endpoint.secret, 'standard-webhooks'))).toMatchObject({ success: true, responseStatus: 204 });
      expect(await testThrough(endpoint.id, await runSnippet(endpoint.secret, 'x-service-signature'))).toMatchObject({ success: false, responseStatus: 401 });
      expect(await testThrough(endpoint.id, await runSnippet(rotated.secret, 'x-service-signature'))).toMatchObject({ success: true, responseStatus: 204 });
    });
  });

  test('then no secret was ever logged or shown in an attempt', async () => {
    expect(secrets.length).toBeGreaterThan(5);
    const logged = log.lines.join('\n');
    expect(logged.length).toBeGreaterThan(0);
    const attempts = JSON.stringify(await pool.query('SELECT * FROM webhook_attempts').then((r) => r.rows));
    for (const secret of secrets) {
      for (const form of [secret, secret.slice('whsec_'.length)]) {
        expect(logged.includes(form)).toBe(false);
        expect(attempts.includes(form)).toBe(false);
      }
    }
  });

  const deliveryState = async (eventId: string, webhookId: string) =>
    (await pool.query({ text: 'SELECT state FROM webhook_deliveries WHERE event_id = $1 AND webhook_id = $2', values: [eventId, webhookId] })).rows[0]?.state as string | undefined;
});
