import { randomBytes } from 'node:crypto';
import { DnsServer } from '../../../test/support/dns-server';
import { createKey, signUp, startTestGateway, type TestGateway } from '../../../test/support/gateway';
import type { ApiClient, ApiResponse } from '../../../test/support/http';
import { publish } from '../../../test/support/published-records';
import type { Queryable } from '@mailroom/db';
import { VerifiedDomainsCache } from '../src/features/domains/verified-domains-cache';
import { Webhook } from 'standardwebhooks';
import { appendTestEvents, Receiver } from '../../webhook-dispatcher/test/support';

/**
 * Conflicting requests sent at the same moment (Promise.all, many rounds, several rounds at a
 * time) against a real gateway and database: every answer is a contract answer (never a 500),
 * and what is left is what some serial order of the same requests would have left.
 */

const ROUNDS = 25;
const hex = () => randomBytes(4).toString('hex');

/** A contract answer: one of `statuses`, and for an error the error JSON with that status. */
function expectAnswer(res: ApiResponse, statuses: number[]): void {
  if (!statuses.includes(res.status)) throw new Error(`unexpected ${res.status}: ${res.text}`);
  if (res.status >= 400) {
    expect(res.body).toEqual({ name: expect.any(String), message: expect.any(String), statusCode: res.status });
  }
}

const count = (results: ApiResponse[], status: number) => results.filter((r) => r.status === status).length;

/** Rounds run at once (each lane runs its rounds one after another). */
const LANES = 5;

/**
 * Runs `round(0)` … `round(count - 1)`, `LANES` of them at a time. Each round still sends its
 * conflicting requests together and checks what they left; rounds overlap only with rounds on
 * other rows (each makes its own names, keys and records), which adds load and interleavings
 * around each round's conflict rather than taking any away, and costs a fraction of the time.
 * The first failure stops the lanes and is thrown once every running round has finished.
 */
async function inLanes(count: number, round: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (next < count && !failure) {
      const index = next++;
      try {
        await round(index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(LANES, count) }, lane));
  if (failure) throw failure.error;
}

describe('concurrent, conflicting API requests', () => {
  let t: TestGateway;
  let a: ApiClient;
  let b: ApiClient;
  let projectId: string;
  let token: string;
  beforeAll(async () => {
    t = await startTestGateway({ label: 'races', env: { ALLOW_SIGNUP: 'true', ALLOW_PRIVATE_NETWORKS: 'true' } });
    const owner = await signUp(t.api);
    projectId = owner.projectId;
    a = owner.as;
    token = (await createKey(owner.as)).token;
    b = t.api.as({ token });
  });
  afterAll(() => t.close());

  const send = (key: string, body: unknown, path = '/emails') =>
    t.api.request('POST', path, { token, body, headers: { 'idempotency-key': key } });
  const mail = (subject: string) => ({ from: 'a@acme.example', to: 'delivered@sandbox.mailroom.test', subject, text: 'hi' });

  describe('routes', () => {
    test('when two requests create the same match at once, then one 201 and one 409, and one route exists', async () => {
      await inLanes(ROUNDS, async () => {
        const match = `race${hex()}@acme.example`;
        const results = await Promise.all([a.post('/routes', { match }), b.post('/routes', { match })]);
        for (const r of results) expectAnswer(r, [201, 409]);
        expect([count(results, 201), count(results, 409)]).toEqual([1, 1]);
        expect(await t.gateway.ctx.db.route.count({ where: { match } })).toBe(1);
      });
    });

    test('when a route is patched to a match another request is creating, then one wins and the other is 409', async () => {
      await inLanes(ROUNDS, async () => {
        const existing = await a.post('/routes', { match: `old${hex()}@acme.example` });
        const match = `moving${hex()}@acme.example`;
        const [patched, created] = await Promise.all([a.patch(`/routes/${existing.body.id}`, { match }), b.post('/routes', { match })]);
        expectAnswer(patched, [200, 409]);
        expectAnswer(created, [201, 409]);
        expect([patched.status === 200, created.status === 201].filter(Boolean)).toHaveLength(1);
        expect(await t.gateway.ctx.db.route.count({ where: { match } })).toBe(1);
      });
    });

    test('when a route is deleted while an endpoint scoped to it is created, then either the route stays (and the endpoint has it) or neither exists', async () => {
      await inLanes(ROUNDS, async () => {
        const route = await a.post('/routes', { match: `scoped${hex()}@acme.example` });
        const [deleted, created] = await Promise.all([
          a.delete(`/routes/${route.body.id}`),
          a.post('/webhooks', { url: 'http://127.0.0.1:9/in', events: ['email.received'], routeId: route.body.id }),
        ]);
        expectAnswer(deleted, [200, 409]);
        expectAnswer(created, [201, 422]);
        expect([deleted.status, created.status]).not.toEqual([200, 201]);
        expect([deleted.status, created.status]).not.toEqual([409, 422]);
        expect([deleted.status, created.status]).not.toEqual([200, 201]);
        const routeLeft = await t.gateway.ctx.db.route.count({ where: { id: route.body.id } });
        expect(routeLeft).toBe(deleted.status === 200 ? 0 : 1);
      });
    });
    test('when an endpoint is moved to a route that is being deleted, then either the move or the delete is refused', async () => {
      await inLanes(ROUNDS, async () => {
        const route = await a.post('/routes', { match: `moved${hex()}@acme.example` });
        const hook = await a.post('/webhooks', { url: 'http://127.0.0.1:9/in', events: ['email.received'] });
        const [deleted, moved] = await Promise.all([a.delete(`/routes/${route.body.id}`), a.patch(`/webhooks/${hook.body.id}`, { routeId: route.body.id })]);
        expectAnswer(deleted, [200, 409]);
        expectAnswer(moved, [200, 422]);
        expect([deleted.status, moved.status]).toContain(deleted.status === 200 ? 422 : 200);
        await a.delete(`/webhooks/${hook.body.id}`);
      });
    });
  });

  describe('idempotency', () => {
    test('when the same key and body arrive at once, then one email and every 200 names it', async () => {
      await inLanes(ROUNDS, async () => {
        const key = `same-${hex()}`;
        const body = mail(`same ${key}`);
        const results = await Promise.all([send(key, body), send(key, body), send(key, body)]);
        for (const r of results) expectAnswer(r, [200, 409]);
        const ids = new Set(results.filter((r) => r.status === 200).map((r) => r.body.id));
        expect(ids.size).toBe(1);
        for (const r of results.filter((r) => r.status === 409)) expect(r.body.name).toBe('concurrent_idempotent_requests');
        expect(await t.gateway.ctx.db.email.count({ where: { projectId, subject: body.subject } })).toBe(1);
      });
    });

    test('when the same key comes with different bodies at once, then one email, the other 409', async () => {
      await inLanes(ROUNDS, async () => {
        const key = `diff-${hex()}`;
        const results = await Promise.all([send(key, mail(`diff one ${key}`)), send(key, mail(`diff two ${key}`))]);
        for (const r of results) expectAnswer(r, [200, 409]);
        expect(count(results, 200)).toBe(1);
        expect(await t.gateway.ctx.db.email.count({ where: { projectId, subject: { contains: key } } })).toBe(1);
      });
    });

    test('when the same key comes on /emails/batch at once, then one set of emails', async () => {
      await inLanes(ROUNDS, async () => {
        const key = `batch-${hex()}`;
        const body = [mail(`batch a ${key}`), mail(`batch b ${key}`)];
        const results = await Promise.all([send(key, body, '/emails/batch'), send(key, body, '/emails/batch'), send(key, [mail(`batch c ${key}`)], '/emails/batch')]);
        for (const r of results) expectAnswer(r, [200, 409]);
        const answers = new Set(results.filter((r) => r.status === 200).map((r) => JSON.stringify(r.body)));
        expect(answers.size).toBe(1);
        const stored = await t.gateway.ctx.db.email.count({ where: { projectId, subject: { contains: key } } });
        expect(stored).toBe(JSON.parse([...answers][0] as string).data.length);
      });
    });
  });

  describe('members', () => {
    // Two users for the section, each round in a project of its own (a sign-up costs a password
    // hash; a project is one insert). The conflicts are between member rows of one project.
    let first: Awaited<ReturnType<typeof signUp>>;
    let second: Awaited<ReturnType<typeof signUp>>;
    beforeAll(async () => {
      first = await signUp(t.api);
      second = await signUp(t.api);
    });
    /** A new project of `first`'s, `second` made its other owner, and each one's client for it. */
    async function twoOwners() {
      const created = await first.as.post('/projects', { name: 'Race' });
      expect(created.status).toBe(201);
      const projectId = created.body.id as string;
      const firstAs = t.api.as({ session: first.session, project: projectId });
      expect((await firstAs.post(`/projects/${projectId}/members`, { email: second.email, role: 'owner' })).status).toBe(201);
      const secondAs = t.api.as({ session: second.session, project: projectId });
      return { projectId, first, second, firstAs, secondAs };
    }
    const owners = (id: string) => t.gateway.ctx.db.member.count({ where: { projectId: id, role: 'owner' } });

    test('when the last two owners demote or remove each other at once, then one owner is always left', async () => {
      const moves = [
        (as: ApiClient, p: string, u: string) => as.patch(`/projects/${p}/members/${u}`, { role: 'member' }),
        (as: ApiClient, p: string, u: string) => as.delete(`/projects/${p}/members/${u}`),
      ];
      await inLanes(16, async (round) => {
        const { projectId: p, first, second, firstAs, secondAs } = await twoOwners();
        const moveA = moves[round % 2] as (typeof moves)[number];
        const moveB = moves[Math.floor(round / 2) % 2] as (typeof moves)[number];
        const selfA = round % 4 >= 2;
        const results = await Promise.all([moveA(firstAs, p, selfA ? first.userId : second.userId), moveB(secondAs, p, first.userId)]);
        for (const r of results) expectAnswer(r, [200, 403, 404, 409]);
        expect(await owners(p)).toBe(1);
      });
    });

    test('when the same user is added twice at once, then one 201 and one 409', async () => {
      await inLanes(10, async () => {
        const created = await first.as.post('/projects', { name: 'Race' });
        expect(created.status).toBe(201);
        const ownerAs = t.api.as({ session: first.session, project: created.body.id });
        const add = () => ownerAs.post(`/projects/${created.body.id}/members`, { email: second.email, role: 'member' });
        const results = await Promise.all([add(), add()]);
        for (const r of results) expectAnswer(r, [201, 409]);
        expect([count(results, 201), count(results, 409)]).toEqual([1, 1]);
      });
    });
  });

  describe('sign-up', () => {
    test('when the same email signs up twice at once, then one 201 and one 409, and one user', async () => {
      await inLanes(10, async () => {
        const email = `twin${hex()}@example.com`;
        const up = (spelling: string) => t.api.post('/auth/signup', { email: spelling, password: 'correct horse battery' });
        const results = await Promise.all([up(email), up(email.toUpperCase())]);
        for (const r of results) expectAnswer(r, [201, 409]);
        expect([count(results, 201), count(results, 409)]).toEqual([1, 1]);
        expect(await t.gateway.ctx.db.user.count({ where: { email } })).toBe(1);
      });
    });
  });

  describe('sessions', () => {
    test('when a session signs out twice while it is being used, then contract answers and afterwards it is refused', async () => {
      await inLanes(10, async () => {
        const user = await signUp(t.api);
        const session = t.api.as({ session: user.session });
        const results = await Promise.all([session.post('/auth/logout'), user.as.get('/routes'), session.post('/auth/logout'), session.get('/projects')]);
        for (const r of results) expectAnswer(r, [200, 401]);
        expect(count([results[0], results[2]] as ApiResponse[], 200)).toBeGreaterThanOrEqual(1);
        expectAnswer(await session.get('/projects'), [401]);
      });
    });
  });

  describe('webhooks', () => {
    const newHook = async () => {
      const res = await b.post('/webhooks', { url: 'http://127.0.0.1:9/in', events: ['email.delivered'] });
      expect(res.status).toBe(201);
      return res.body;
    };

    test('when the secret is rotated twice at once, then a delivery verifies with the secret each answer showed', async () => {
      const receiver = await new Receiver().start();
      try {
        await inLanes(ROUNDS, async () => {
          const hook = (await b.post('/webhooks', { url: receiver.url, events: ['email.delivered'] })).body;
          const results = await Promise.all([b.post(`/webhooks/${hook.id}/rotate-secret`), b.post(`/webhooks/${hook.id}/rotate-secret`)]);
          for (const r of results) expectAnswer(r, [200]);
          const tested = await b.post(`/webhooks/${hook.id}/test`);
          expectAnswer(tested, [200]);
          const [request] = receiver.forEvent(tested.body.eventId);
          if (!request) throw new Error('the test event did not arrive');
          const headers = {
            'webhook-id': String(request.headers['webhook-id']),
            'webhook-timestamp': String(request.headers['webhook-timestamp']),
            'webhook-signature': String(request.headers['webhook-signature']),
          };
          // Within the 24 h grace both rotated secrets sign (DESIGN §5); the first one, replaced, no longer does.
          for (const r of results) expect(() => new Webhook(r.body.secret).verify(request.body, headers)).not.toThrow();
          expect(() => new Webhook(hook.secret).verify(request.body, headers)).toThrow();
          await b.delete(`/webhooks/${hook.id}`);
        });
      } finally {
        await receiver.stop();
      }
    });

    test('when the latest failure is replayed several times at once, then one replay runs at a time (the others 409), each attempt numbered in turn, and a fixed receiver gets the event once', async () => {
      const receiver = await new Receiver().start();
      receiver.answer = () => ({ status: 500, body: 'down' });
      try {
        for (let round = 0; round < 10; round++) {
          const hook = (await b.post('/webhooks', { url: receiver.url, events: ['email.delivered'] })).body;
          const failed = await b.post(`/webhooks/${hook.id}/test`);
          expect(failed.body).toMatchObject({ success: false, attempt: 1 });
          if (round % 2) receiver.answer = () => ({ status: 200, body: 'ok' });
          const results = await Promise.all([b.post(`/webhooks/${hook.id}/replay`), b.post(`/webhooks/${hook.id}/replay`), b.post(`/webhooks/${hook.id}/replay`)]);
          for (const r of results) expectAnswer(r, [200, 404, 409]);
          const made = results.filter((r) => r.status === 200).map((r) => r.body.attempt as number);
          expect(made.sort()).toEqual([2, 3, 4].slice(0, made.length));
          expect(made.length).toBeGreaterThanOrEqual(1);
          // Delivered at most once: a replay that succeeded leaves nothing for another.
          expect(results.filter((r) => r.status === 200 && r.body.success).length).toBeLessThanOrEqual(1);
          receiver.answer = () => ({ status: 500, body: 'down' });
          await b.delete(`/webhooks/${hook.id}`);
        }
      } finally {
        await receiver.stop();
      }
    });

    test('when an endpoint is patched and deleted at once, then 200/404 answers and it is gone', async () => {
      await inLanes(ROUNDS, async () => {
        const hook = await newHook();
        const [patched, deleted] = await Promise.all([b.patch(`/webhooks/${hook.id}`, { description: 'x', enabled: false }), b.delete(`/webhooks/${hook.id}`)]);
        expectAnswer(patched, [200, 404]);
        expectAnswer(deleted, [200]);
        expect(await t.gateway.ctx.db.webhook.count({ where: { id: hook.id } })).toBe(0);
      });
    });

    test('when an endpoint is deleted while it is recovered, tested and replayed, then contract answers and it is gone', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const hook = (await b.post('/webhooks', { url: 'http://127.0.0.1:9/in', events: ['email.received'] })).body;
        // Events it missed while disabled, which the dispatcher's fan-out has already passed: recover adds deliveries for them.
        await b.patch(`/webhooks/${hook.id}`, { enabled: false });
        await appendTestEvents(t.gateway.ctx.pool, projectId, [{ type: 'email.received' }, { type: 'email.received' }]);
        await t.gateway.ctx.pool.query(
          `INSERT INTO outbox_cursors (consumer, xact_id, position)
           SELECT 'webhooks', xact_id, position FROM email_events ORDER BY xact_id DESC, position DESC LIMIT 1
           ON CONFLICT (consumer) DO UPDATE SET xact_id = EXCLUDED.xact_id, position = EXCLUDED.position`,
        );
        const since = new Date(Date.now() - 60_000).toISOString();
        const [recovered, tested, replayed, deleted] = await Promise.all([
          b.post(`/webhooks/${hook.id}/recover`, { since }),
          b.post(`/webhooks/${hook.id}/test`),
          b.post(`/webhooks/${hook.id}/replay`),
          b.delete(`/webhooks/${hook.id}`),
        ]);
        // A recover and a replay of one endpoint exclude each other: whichever comes second is a 409.
        expectAnswer(recovered, [202, 404, 409]);
        expectAnswer(tested, [200, 404]);
        expectAnswer(replayed, [200, 404, 409]);
        expectAnswer(deleted, [200]);
        expect(await t.gateway.ctx.db.webhook.count({ where: { id: hook.id } })).toBe(0);
      }
    });

    test('when an endpoint is deleted twice at once, then one 200 and one 404', async () => {
      await inLanes(ROUNDS, async () => {
        const hook = await newHook();
        const results = await Promise.all([b.delete(`/webhooks/${hook.id}`), b.delete(`/webhooks/${hook.id}`)]);
        for (const r of results) expectAnswer(r, [200, 404]);
        expect([count(results, 200), count(results, 404)]).toEqual([1, 1]);
      });
    });
  });

  describe('domains', () => {
    test('when the same domain is added twice at once, then one 201 and one 409', async () => {
      await inLanes(10, async () => {
        const name = `race${hex()}.example`;
        const results = await Promise.all([b.post('/domains', { name }), b.post('/domains', { name })]);
        for (const r of results) expectAnswer(r, [201, 409]);
        expect([count(results, 201), count(results, 409)]).toEqual([1, 1]);
      });
    });

    test('when a domain is verified, rotated and deleted at once, then contract answers and it is gone', async () => {
      await inLanes(10, async () => {
        const domain = (await b.post('/domains', { name: `gone${hex()}.example` })).body;
        const [verified, rotated, deleted] = await Promise.all([
          b.post(`/domains/${domain.id}/verify`),
          b.post(`/domains/${domain.id}/rotate-dkim`),
          b.delete(`/domains/${domain.id}`),
        ]);
        expectAnswer(verified, [200, 404]);
        expectAnswer(rotated, [200, 404]);
        expectAnswer(deleted, [200]);
        expect(await t.gateway.ctx.db.domain.count({ where: { id: domain.id } })).toBe(0);
      });
    });
  });

  describe('API keys', () => {
    test('when a key is revoked twice at once, then one 200 and one 404', async () => {
      await inLanes(ROUNDS, async () => {
        const key = await createKey(a);
        const results = await Promise.all([a.delete(`/api-keys/${key.id}`), a.delete(`/api-keys/${key.id}`)]);
        for (const r of results) expectAnswer(r, [200, 404]);
        expect([count(results, 200), count(results, 404)]).toEqual([1, 1]);
      });
    });

    test('when a key revokes itself while it is being used, then every answer is 2xx or 403, and afterwards it is refused', async () => {
      await inLanes(ROUNDS, async () => {
        const key = await createKey(a);
        const as = t.api.as({ token: key.token });
        const results = await Promise.all([as.delete(`/api-keys/${key.id}`), as.get('/routes'), as.post('/emails', mail('self-revoke')), as.delete(`/api-keys/${key.id}`)]);
        for (const r of results) expectAnswer(r, [200, 403, 404]);
        expect(results.filter((r, i) => (i === 0 || i === 3) && r.status === 200)).toHaveLength(1);
        expectAnswer(await as.get('/routes'), [403]);
      });
    });
  });

  describe('scheduled emails', () => {
    test('when a scheduled email is canceled twice at once, then one 200 and one 409', async () => {
      await inLanes(ROUNDS, async () => {
        const sent = await b.post('/emails', { ...mail('later'), scheduledAt: new Date(Date.now() + 3_600_000).toISOString() });
        const results = await Promise.all([b.post(`/emails/${sent.body.id}/cancel`), b.post(`/emails/${sent.body.id}/cancel`)]);
        for (const r of results) expectAnswer(r, [200, 409]);
        expect([count(results, 200), count(results, 409)]).toEqual([1, 1]);
      });
    });
  });
});

describe('concurrent sign-ups while signup is open only for the first user', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ label: 'racesfirst' });
  });
  afterAll(() => t.close());

  test('when two people sign up at once on an empty installation, then exactly one becomes the first user', async () => {
    for (let round = 0; round < 10; round++) {
      await t.gateway.ctx.pool.query('TRUNCATE users, projects CASCADE');
      const up = (i: number) => t.api.post('/auth/signup', { email: `first${i}-${hex()}@example.com`, password: 'correct horse battery' });
      const results = await Promise.all([up(1), up(2), up(3)]);
      for (const r of results) expectAnswer(r, [201, 403]);
      expect(count(results, 201)).toBe(1);
      expect(await t.gateway.ctx.db.user.count()).toBe(1);
      // Closed from then on, also for requests arriving together.
      const closed = await Promise.all([up(4), up(5)]);
      for (const r of closed) expectAnswer(r, [403]);
    }
  });
});

describe('concurrent sends and domain changes with REQUIRE_VERIFIED_DOMAINS', () => {
  let dns: DnsServer;
  let t: TestGateway;
  let api: ApiClient;
  beforeAll(async () => {
    dns = await new DnsServer().start();
    t = await startTestGateway({
      label: 'racesdomains',
      env: { ALLOW_SIGNUP: 'true', REQUIRE_VERIFIED_DOMAINS: 'true', DNS_SERVERS: dns.address, DOMAIN_MX_HOST: 'mx.mailroom.example', DOMAIN_SPF_MECHANISMS: 'ip4:192.0.2.10' },
    });
    api = t.api.as({ token: (await createKey((await signUp(t.api)).as)).token });
  });
  afterAll(async () => {
    await t.close();
    await dns.stop();
  });

  test('when a domain is verified several times at once, then it is verified once, with one domain.updated event', async () => {
    const zone = {};
    await inLanes(10, async () => {
      const added = (await api.post('/domains', { name: `twice${hex()}.example` })).body;
      dns.setZone(publish(added.records, zone));
      const results = await Promise.all([1, 2, 3].map(() => api.post(`/domains/${added.id}/verify`)));
      for (const r of results) expectAnswer(r, [200]);
      expect(results.map((r) => r.body.status)).toEqual(['verified', 'verified', 'verified']);
      const { rows } = await t.gateway.ctx.pool.query(`SELECT count(*)::int AS n FROM email_events WHERE domain_id = $1 AND type = 'domain.updated'`, [added.id]);
      expect(rows[0]).toEqual({ n: 1 });
    });
  });

  test('when two projects verify the same name at once, then exactly one holds it verified', async () => {
    const other = t.api.as({ token: (await createKey((await signUp(t.api)).as)).token });
    const zone = {};
    await inLanes(10, async () => {
      const name = `claimed${hex()}.example`;
      const mine = (await api.post('/domains', { name })).body;
      const theirs = (await other.post('/domains', { name })).body;
      // Both projects' records, each published once (one SPF and one DMARC record per name).
      const records = [...mine.records, ...theirs.records] as { type: string; name: string; value: string }[];
      const once = records.filter((r, i) => records.findIndex((o) => o.type === r.type && o.name === r.name && o.value === r.value) === i);
      dns.setZone(publish(once as Parameters<typeof publish>[0], zone));
      const results = await Promise.all([api.post(`/domains/${mine.id}/verify`), other.post(`/domains/${theirs.id}/verify`)]);
      for (const r of results) expectAnswer(r, [200]);
      expect(results.map((r) => r.body.status).sort()).toEqual(['pending', 'verified']);
    });
  });

  test('when a lookup read the domain as verified before it was deleted and answers after, then the gateway does not remember it as verified', async () => {
    const owner = await signUp(t.api);
    const as = t.api.as({ token: (await createKey(owner.as)).token });
    const name = `cache${hex()}.example`;
    const added = (await as.post('/domains', { name })).body;
    dns.setZone(publish(added.records));
    expect((await as.post(`/domains/${added.id}/verify`)).body.status).toBe('verified');
    // The lookup's answer is held until the delete (and its forget) are done, as a slow statement's would be.
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    const slow: Queryable = {
      async query(config) {
        const result = await t.gateway.ctx.pool.query(config);
        await held;
        return result as never;
      },
    };
    const cache = new VerifiedDomainsCache(slow, 60_000);
    const inFlight = cache.verified(owner.projectId, [name]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await as.delete(`/domains/${added.id}`)).status).toBe(200);
    cache.forget(owner.projectId);
    answer();
    expect(await inFlight).toEqual(new Set([name]));
    expect(await cache.verified(owner.projectId, [name])).toEqual(new Set());
  });

  test('when a domain is deleted while sends from it are accepted, then once the delete has answered no send from it is accepted', async () => {
    const zone = {};
    await inLanes(40, async () => {
      const name = `send${hex()}.example`;
      const added = (await api.post('/domains', { name })).body;
      dns.setZone(publish(added.records, zone));
      expect((await api.post(`/domains/${added.id}/verify`)).body.status).toBe('verified');
      const send = () => api.post('/emails', { from: `hello@${name}`, to: 'delivered@sandbox.mailroom.test', subject: 'race', text: 'hi' });
      const results = await Promise.all([send(), send(), send(), send(), api.delete(`/domains/${added.id}`), send(), send(), send()]);
      for (const r of results) expectAnswer(r, [200, 403]);
      expect((results[4] as ApiResponse).status).toBe(200);
      expectAnswer(await send(), [403]);
    });
  });
});
