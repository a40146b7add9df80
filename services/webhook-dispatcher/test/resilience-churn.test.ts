import { deriveKey, type EventQueue, loadConfig, newId } from '@mailroom/core';
import { deleteWebhook, insertWebhook, type Pool, rotateWebhookSecret, updateWebhook } from '@mailroom/db';
import { Webhook } from 'standardwebhooks';
import { TEST_SECRET_KEY } from '../../../test/support/gateway';
import { type RunningDispatcher, startDispatcher } from '../src/start-dispatcher';
import { unrecordedPosts } from './resilience-support';
import { appendTestEvents, createEndpoint, createProject, createRoute, type DispatcherTestBed, openTestBed, type ReceivedRequest, Receiver, until } from './support';

const TYPES = ['email.delivered', 'email.opened', 'email.received'] as const;
// WEBHOOK_CONCURRENCY_PER_ENDPOINT's default: the posts one endpoint has in flight at once.
const PER_ENDPOINT = 10;

describe('endpoints changed while events flow', () => {
  let bed: DispatcherTestBed;
  let pool: Pool;
  let eventQueue: EventQueue;
  let dispatcher: RunningDispatcher;
  const receiver = new Receiver();
  const moved = new Receiver();
  const encryptionKey = deriveKey(TEST_SECRET_KEY, 'encryption');

  beforeAll(async () => {
    // The receivers answer at once, but they share this process with the dispatcher and its
    // thousands of posts: on a loaded machine answers took over 2 s, and a post that times out is
    // retried (a second post on the wire) or, at an endpoint disabled meanwhile, stopped unanswered.
    // So a 10 s timeout (a 25 s lease; still two rounds claimed ahead, as with 2 s), and nine
    // retries a second apart should one still miss it.
    bed = await openTestBed('whreschurn', { WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1,1', WEBHOOK_TIMEOUT_SECONDS: '10', LEASE_SECONDS: '2', RECONCILE_INTERVAL_SECONDS: '1' });
    ({ pool, eventQueue } = bed);
    await receiver.start();
    await moved.start();
    dispatcher = await startDispatcher(loadConfig(bed.env));
  });
  afterAll(async () => {
    await dispatcher.stop();
    await receiver.stop();
    await moved.stop();
    await bed.close();
  });

  const now = async () => (await pool.query<{ t: Date }>(`SELECT (now() AT TIME ZONE 'UTC') AS t`)).rows[0]!.t;
  const tagged = (tag: string, from = receiver) => from.requests.filter((r) => r.url.endsWith(`?${tag}`));
  const idsOf = (requests: ReceivedRequest[]) => requests.map((r) => r.headers['webhook-id'] as string);

  test('when endpoints are created, re-subscribed, re-routed, moved, rotated, disabled, re-enabled and deleted during 2,000 events, then each receives what the rules say, once', async () => {
    const projectId = await createProject(pool);
    const [route1, route2] = [await createRoute(pool, projectId), await createRoute(pool, projectId)];
    const url = (tag: string, to = receiver) => `${to.url}?${tag}`;
    const steady = await createEndpoint(pool, projectId, { url: url('steady'), events: ['email.delivered', 'email.opened'] });
    const resubscribed = await createEndpoint(pool, projectId, { url: url('resubscribed'), events: ['email.delivered'] });
    const rerouted = await createEndpoint(pool, projectId, { url: url('rerouted'), events: ['email.received'], routeId: route1 });
    const movedEndpoint = await createEndpoint(pool, projectId, { url: url('moved'), events: ['email.delivered'] });
    const rotated = await createEndpoint(pool, projectId, { url: url('rotated'), events: ['email.opened'] });
    const toggled = await createEndpoint(pool, projectId, { url: url('toggled'), events: ['email.delivered'] });
    const deleted = await createEndpoint(pool, projectId, { url: url('deleted'), events: ['email.opened'] });
    let created: { id: string; secret: string } | undefined;
    const at: Record<string, Date> = {};
    const onWire: Record<string, number> = {};
    let newSecret = '';

    const events: { id: string; type: string; route: string }[] = [];
    for (let batch = 0; batch < 20; batch++) {
      const specs = Array.from({ length: 100 }, (_, i) => {
        const type = TYPES[(batch * 100 + i) % 3]!;
        const route = i % 2 === 0 ? route1 : route2;
        return { type, route, data: type === 'email.received' ? { email_id: 'em_x', route_id: route } : { email_id: 'em_x' } };
      });
      const ids = await appendTestEvents(pool, projectId, specs);
      events.push(...ids.map((id, i) => ({ id, type: specs[i]!.type, route: specs[i]!.route })));
      await eventQueue.notify();
      await new Promise((resolve) => setTimeout(resolve, 40));
      if (batch === 3) {
        const result = await insertWebhook(pool, { id: newId('webhook'), projectId, url: url('created'), events: ['email.delivered'], routeId: null, description: null, enabled: true }, encryptionKey);
        if (result === 'unknown_route') throw new Error('unexpected');
        created = { id: result.webhook.id, secret: result.secret };
      }
      if (batch === 4) {
        await updateWebhook(pool, projectId, toggled.id, { enabled: false });
        at.disabled = await now();
      }
      if (batch === 6) {
        const rotation = await rotateWebhookSecret(pool, projectId, rotated.id, encryptionKey);
        newSecret = rotation!.secret;
        at.rotated = await now();
        onWire.rotated = tagged('rotated').length;
      }
      if (batch === 8) {
        await updateWebhook(pool, projectId, resubscribed.id, { events: ['email.opened'] });
        at.resubscribed = await now();
      }
      if (batch === 9) await updateWebhook(pool, projectId, toggled.id, { enabled: true });
      if (batch === 10) {
        await updateWebhook(pool, projectId, rerouted.id, { routeId: route2 });
        at.rerouted = await now();
      }
      if (batch === 12) {
        await updateWebhook(pool, projectId, movedEndpoint.id, { url: url('moved', moved) });
        onWire.moved = tagged('moved').length;
      }
      if (batch === 14) {
        await deleteWebhook(pool, projectId, deleted.id);
        onWire.deleted = tagged('deleted').length;
      }
    }
    const pending = async () =>
      Number((await pool.query<{ n: string }>({ text: `SELECT count(*) AS n FROM webhook_deliveries WHERE project_id = $1 AND state = 'pending'`, values: [projectId] })).rows[0]!.n);
    const steadyRows = async () => Number((await pool.query<{ n: string }>({ text: 'SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = $1', values: [steady.id] })).rows[0]!.n);
    // The last event (an opened one) is fanned out once the steady endpoint has a row for each of its 1,334 events.
    await until(async () => (await steadyRows()) === 1_334 && (await pending()) === 0, 60_000, 'every delivery done', 200);
    const rows = async (webhookId: string) =>
      (await pool.query<{ event_id: string; state: string }>({ text: 'SELECT event_id, state FROM webhook_deliveries WHERE webhook_id = $1', values: [webhookId] })).rows;
    const eventsAfter = async (since: Date) =>
      new Set((await pool.query<{ id: string }>({ text: 'SELECT id FROM email_events WHERE project_id = $1 AND created_at > $2', values: [projectId, since] })).rows.map((r) => r.id));
    const subscribedAt = async (webhookId: string) =>
      (await pool.query<{ s: Date }>({ text: 'SELECT subscribed_at AS s FROM webhooks WHERE id = $1', values: [webhookId] })).rows[0]!.s;
    const typeOf = new Map(events.map((e) => [e.id, e]));

    // Every endpoint: what it received is exactly its succeeded rows, each succeeded once, and a
    // post more than once only as a recorded retry after a timeout (the one failure allowed: the
    // receivers answer every post with a 200). A duplicate the attempt log does not know of, or a
    // second success, fails.
    const posted = (webhookId: string, ids: string[]) => ids.map((eventId) => ({ webhookId, eventId }));
    for (const [tag, endpoint] of Object.entries({ steady, resubscribed, rerouted, rotated, toggled, created: created! })) {
      const got = idsOf(tagged(tag));
      expect({ tag, unrecorded: await unrecordedPosts(pool, posted(endpoint.id, got)) }).toEqual({ tag, unrecorded: [] });
      const succeeded = (await rows(endpoint.id)).filter((r) => r.state === 'succeeded').map((r) => r.event_id);
      expect({ tag, got: new Set(got) }).toEqual({ tag, got: new Set(succeeded) });
    }
    const { rows: failures } = await pool.query<{ error: string | null; status: number | null }>({
      text: `SELECT error, response_status AS status FROM webhook_attempts
              WHERE webhook_id = ANY($1) AND NOT success AND (response_status IS NOT NULL OR error IS NULL OR error !~ '^(No answer|The HTTP 200 response did not end) within 10 s \\(WEBHOOK_TIMEOUT_SECONDS\\)\\.$')`,
      values: [[steady, resubscribed, rerouted, movedEndpoint, rotated, toggled, created!].map((e) => e.id)],
    });
    expect(failures).toEqual([]);
    // steady: every delivered and opened event.
    expect(new Set(idsOf(tagged('steady')))).toEqual(new Set(events.filter((e) => e.type !== 'email.received').map((e) => e.id)));
    // created: the delivered events created after it, all of them.
    const createdSince = await eventsAfter(await subscribedAt(created!.id));
    expect(new Set(idsOf(tagged('created')))).toEqual(new Set(events.filter((e) => e.type === 'email.delivered' && createdSince.has(e.id)).map((e) => e.id)));
    // resubscribed: after the PATCH, opened and no longer delivered.
    const afterResubscribe = await eventsAfter(at.resubscribed!);
    const resubscribedGot = new Set(idsOf(tagged('resubscribed')));
    for (const e of events.filter((x) => afterResubscribe.has(x.id))) expect([e.type, resubscribedGot.has(e.id)]).toEqual([e.type, e.type === 'email.opened']);
    expect([...resubscribedGot].every((id) => ['email.delivered', 'email.opened'].includes(typeOf.get(id)!.type))).toBe(true);
    // rerouted: only received events of its route at fan-out; after the PATCH all of route 2's.
    const afterReroute = await eventsAfter(at.rerouted!);
    const reroutedGot = new Set(idsOf(tagged('rerouted')));
    for (const e of events.filter((x) => afterReroute.has(x.id))) expect([e.id, reroutedGot.has(e.id)]).toEqual([e.id, e.type === 'email.received' && e.route === route2]);
    expect([...reroutedGot].every((id) => typeOf.get(id)!.type === 'email.received')).toBe(true);
    // toggled: nothing created while it was disabled; everything after it was re-enabled.
    const reenabled = await subscribedAt(toggled.id);
    const afterReenable = await eventsAfter(reenabled);
    const toggledGot = new Set(idsOf(tagged('toggled')));
    for (const e of events.filter((x) => afterReenable.has(x.id))) expect([e.id, toggledGot.has(e.id)]).toEqual([e.id, e.type === 'email.delivered']);
    const afterDisable = await eventsAfter(at.disabled!);
    const whileDisabled = events.filter((e) => afterDisable.has(e.id) && !afterReenable.has(e.id));
    expect(whileDisabled.length).toBeGreaterThan(0);
    expect(whileDisabled.filter((e) => toggledGot.has(e.id))).toEqual([]);
    // moved: every delivered event once, at one URL or the other.
    const movedRows = (await rows(movedEndpoint.id)).filter((r) => r.state === 'succeeded').map((r) => r.event_id);
    const movedGot = [...idsOf(tagged('moved')), ...idsOf(tagged('moved', moved))];
    expect(await unrecordedPosts(pool, posted(movedEndpoint.id, movedGot))).toEqual([]);
    expect(new Set(movedGot)).toEqual(new Set(movedRows));
    expect(new Set(movedGot)).toEqual(new Set(events.filter((e) => e.type === 'email.delivered').map((e) => e.id)));
    // After the PATCH, at most the next round of posts (2 × WEBHOOK_CONCURRENCY_PER_ENDPOINT) goes to the old URL.
    expect(tagged('moved').length - onWire.moved!).toBeLessThanOrEqual(2 * PER_ENDPOINT);
    // rotated: every request verifies with the new secret or the old one; after the rotation with the new one.
    const rotatedRequests = tagged('rotated');
    const verifies = (secret: string, r: ReceivedRequest) => {
      try {
        new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
        return true;
      } catch {
        return false;
      }
    };
    const unsignedWithNew = rotatedRequests.slice(onWire.rotated!).filter((r) => !verifies(newSecret, r)).length;
    expect(rotatedRequests.every((r) => verifies(rotated.secret, r) || verifies(newSecret, r))).toBe(true);
    expect(unsignedWithNew).toBeLessThanOrEqual(2 * PER_ENDPOINT);
    expect(tagged('deleted').length - onWire.deleted!).toBeLessThanOrEqual(2 * PER_ENDPOINT);
  }, 120_000);
});
