import { loadConfig } from '@mailroom/core';
import { Client } from 'pg';
import { startGateway, type RunningGateway } from '../src/start-gateway';
import { allRoutes } from '../src/routes';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { DnsServer } from '../../../test/support/dns-server';
import { createKey, signUp, TEST_SECRET_KEY, testEnv } from '../../../test/support/gateway';
import { apiClient, type ApiClient } from '../../../test/support/http';
import { capturingLogger } from '../../webhook-dispatcher/test/support';
import { insertReceived } from './received-fixtures';

const PUBLIC_IP = '93.184.215.14';
const METRICS_TOKEN = 'metrics-token-probe-0123456789abcdef';
const PASSWORD = 'correct horse battery';

/** Every line the gateway logs, at trace level and with no redaction: nothing secret may reach a log call. */
function traceLogger() {
  const log = capturingLogger();
  log.logger.level = 'trace';
  return log;
}

describe('an outside security review of the gateway', () => {
  let dns: DnsServer;
  let database: TestDatabase;
  let gateway: RunningGateway;
  let db: Client;
  let api: ApiClient;
  const log = traceLogger();
  // Everything secret the test sees, to look for afterwards in logs, answers and /metrics.
  const secrets = new Map<string, string>();

  let owner: Awaited<ReturnType<typeof signUp>>;
  let intruder: Awaited<ReturnType<typeof signUp>>;
  let ownerApi: ApiClient;
  let intruderApi: ApiClient;
  // The owner's resources, by the route parameter that names them.
  const mine: Record<string, string> = {};

  beforeAll(async () => {
    dns = await new DnsServer({ zone: { 'public.acme.test': { A: [PUBLIC_IP] }, 'metadata.google.internal': { A: ['169.254.169.254'] } } }).start();
    database = await createTestDatabase('security_probe');
    const config = loadConfig(
      testEnv(database, { ALLOW_SIGNUP: 'true', DNS_SERVERS: dns.address, ALLOW_PRIVATE_NETWORKS: 'false', LOG_LEVEL: 'trace', METRICS_TOKEN, WEBHOOK_TIMEOUT_SECONDS: '1' }),
    );
    gateway = await startGateway(config, { host: '127.0.0.1', logger: log.logger });
    api = apiClient(gateway.url);
    db = new Client({ connectionString: database.url });
    await db.connect();

    owner = await signUp(api);
    intruder = await signUp(api);
    secrets.set('owner session', owner.session);
    secrets.set('intruder session', intruder.session);
    secrets.set('password', PASSWORD);
    secrets.set('SECRET_KEY', TEST_SECRET_KEY);
    secrets.set('METRICS_TOKEN', METRICS_TOKEN);
    const login = await api.post('/auth/login', { email: owner.email, password: PASSWORD });
    secrets.set('login session', login.body.sessionToken);
    const ownerKey = await createKey(owner.as);
    const intruderKey = await createKey(intruder.as);
    secrets.set('owner key', ownerKey.token);
    secrets.set('intruder key', intruderKey.token);
    ownerApi = api.as({ token: ownerKey.token });
    intruderApi = api.as({ token: intruderKey.token });

    const spareKey = await createKey(owner.as);
    secrets.set('spare key', spareKey.token);
    mine.key = spareKey.id;
    const webhook = await ownerApi.post('/webhooks', { url: 'https://public.acme.test/hook', events: ['email.sent'] });
    expect(webhook.status).toBe(201);
    secrets.set('webhook secret', webhook.body.secret);
    mine.webhook = webhook.body.id;
    const rotated = await ownerApi.post(`/webhooks/${webhook.body.id}/rotate-secret`);
    secrets.set('rotated webhook secret', rotated.body.secret);
    const route = await ownerApi.post('/routes', { match: 'support@owner.acme.test' });
    mine.route = route.body.id;
    const domain = await ownerApi.post('/domains', { name: 'owner.acme.test' });
    mine.domain = domain.body.id;
    const email = await ownerApi.post('/emails', {
      from: 'a@owner.acme.test',
      to: 'b@example.test',
      subject: 'later',
      text: 'x',
      scheduledAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    mine.email = email.body.id;
    const received = await insertReceived(db, {
      projectId: owner.projectId,
      routeIds: [route.body.id],
      attachments: [{ filename: 'a.txt', contentType: 'text/plain', content: Buffer.from('private') }],
    });
    mine.received = received.id;
    mine.attachment = received.attachmentIds[0] as string;
    await db.query("INSERT INTO suppressions (project_id, address, reason) VALUES ($1, 'gone@example.test', 'bounce')", [owner.projectId]);
    mine.suppression = 'gone@example.test';

    // The DKIM private key as stored (encrypted) and the webhook secrets' ciphertexts: never to be shown.
    const { rows: domainRows } = await db.query('SELECT dkim_private_key FROM domains WHERE id = $1', [mine.domain]);
    secrets.set('DKIM key ciphertext', domainRows[0].dkim_private_key);
    const { rows: webhookRows } = await db.query('SELECT * FROM webhooks WHERE id = $1', [mine.webhook]);
    for (const [column, value] of Object.entries(webhookRows[0] as Record<string, unknown>)) {
      if (/secret/i.test(column) && typeof value === 'string') secrets.set(`webhooks.${column}`, value);
    }
  });
  afterAll(async () => {
    await db?.end();
    await gateway?.stop();
    await database?.drop();
    await dns?.stop();
  });

  /** Each secret and its random part (after mr_ / whsec_), so a partial echo is caught too. */
  const needles = () =>
    [...secrets.entries()].flatMap(([what, value]) => {
      const random = value.replace(/^(mr_|whsec_)/, '');
      return random === value ? [[what, value]] : [[what, value], [`${what} (random part)`, random]];
    });
  const leaksIn = (text: string) => needles().filter(([, value]) => text.includes(value as string)).map(([what]) => what);

  describe('webhook URLs at creation and PATCH (ALLOW_PRIVATE_NETWORKS off)', () => {
    test.each([
      ['http://0/hook', /0\.0\.0\.0/],
      ['http://0.0.0.0/hook', /0\.0\.0\.0/],
      ['http://[::]/hook', /::/],
      ['http://[::ffff:7f00:1]/hook', /::ffff:7f00:1/],
      ['http://[64:ff9b::127.0.0.1]/hook', /64:ff9b::7f00:1/],
      ['http://[64:ff9b:1::a00:1]/hook', /64:ff9b:1::a00:1/],
      ['http://[2002:a00:1::1]/hook', /2002:a00:1::1/],
      ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook', /2001:0:4136:e378:8000:63bf:3fff:fdd2/],
      ['http://[fec0::1]/hook', /fec0::1/],
      ['http://[fc00::1]/hook', /fc00::1/],
      ['http://[fe80::1]/hook', /fe80::1/],
      ['http://100.64.0.1/hook', /100\.64\.0\.1/],
      ['http://[::ffff:a9fe:a9fe]/latest/meta-data', /::ffff:a9fe:a9fe/],
      ['http://metadata.google.internal/computeMetadata/v1/', /metadata\.google\.internal does not resolve to a public address/],
      ['http://LOCALHOST./hook', /localhost/],
      ['http://api.localhost/hook', /api\.localhost does not resolve to a public address/],
      ['http://ｌｏｃａｌｈｏｓｔ/hook', /localhost/],
      ['http://locⓐlhost/hook', /localhost/],
      ['http://127.0.0.1#@public.acme.test/', /127\.0\.0\.1/],
      ['http://127.0.0.1\\@public.acme.test/', /127\.0\.0\.1/],
      ['http:\\\\127.0.0.1\\hook', /127\.0\.0\.1/],
      ['http://127.0.0.1\t/hook', /127\.0\.0\.1/],
      ['http://12\n7.0.0.1/hook', /127\.0\.0\.1/],
    ])('when the URL is %j, then POST and PATCH are 422 naming the refused address or host, and nothing is stored', async (url, address) => {
      const created = await ownerApi.post('/webhooks', { url, events: ['email.sent'] });
      expect({ status: created.status, name: created.body.name }).toEqual({ status: 422, name: 'validation_error' });
      expect(created.body.message).toMatch(/private, loopback or link-local/);
      expect(created.body.message).toMatch(address);
      const patched = await ownerApi.patch(`/webhooks/${mine.webhook}`, { url });
      expect({ status: patched.status, name: patched.body.name }).toEqual({ status: 422, name: 'validation_error' });
      expect((await ownerApi.get(`/webhooks/${mine.webhook}`)).body.url).toBe('https://public.acme.test/hook');
    });

    test.each([
      ['http://[fe80::1%25eth0]/hook', /absolute http\(s\) URL/],
      ['http://127.0.0.1:65536/hook', /absolute http\(s\) URL/],
      ['http://public.acme.test:0/hook', /port 0/],
      ['http://evil.example@public.acme.test/hook', /user name or password/],
      ['javascript:alert(1)//public.acme.test', /http or https/],
      ['file:///etc/passwd', /http or https/],
      ['gopher://public.acme.test:6379/_INFO', /http or https/],
    ])('when the URL is %j, then creation is 422 for its form, before any lookup', async (url, words) => {
      const res = await ownerApi.post('/webhooks', { url, events: ['email.sent'] });
      expect({ status: res.status, name: res.body.name }).toEqual({ status: 422, name: 'validation_error' });
      expect(res.body.message).toMatch(words);
    });
  });

  describe("another project's resources", () => {
    // The body each route needs to get past validation, so only the project can refuse it.
    const bodies: Record<string, unknown> = {
      'patch /projects/{id}': { name: 'taken over' },
      'post /projects/{id}/members': { email: 'x@example.test', role: 'member' },
      'patch /projects/{id}/members/{userId}': { role: 'member' },
      'patch /routes/{id}': { name: 'taken over' },
      'patch /webhooks/{id}': { description: 'taken over' },
      'post /webhooks/{id}/recover': { since: new Date(Date.now() - 3_600_000).toISOString() },
    };
    const pathOf = (path: string): string => {
      const param = (name: string) => {
        if (path.startsWith('/projects/')) return name === 'userId' ? owner.userId : owner.projectId;
        if (path.startsWith('/emails/received/')) return name === 'attachmentId' ? mine.attachment : mine.received;
        if (path.startsWith('/emails/')) return mine.email;
        if (path.startsWith('/api-keys/')) return mine.key;
        if (path.startsWith('/routes/')) return mine.route;
        if (path.startsWith('/domains/')) return mine.domain;
        if (path.startsWith('/webhooks/')) return mine.webhook;
        if (path.startsWith('/suppressions/')) return encodeURIComponent(mine.suppression as string);
        throw new Error(`no resource for ${path}`);
      };
      return path.replace(/\{(\w+)\}/g, (_m, name: string) => param(name) as string);
    };
    const named = allRoutes('http://x')
      .routes.filter((route) => route.access.kind === 'project' && /\{\w+\}/.test(route.path))
      .map((route) => [route.method.toUpperCase(), route.path] as const);

    test('when the route table is read, then every route that names a resource is probed', () => {
      expect(named.length).toBeGreaterThanOrEqual(30);
    });

    const sessionOnly = new Set(
      allRoutes('http://x')
        .routes.filter((route) => route.access.kind === 'project' && (route.access.ownerOnly || route.access.sessionOnly))
        .map((route) => `${route.method.toUpperCase()} ${route.path}`),
    );

    test.each(named)("when another project's key calls %s %s with the owner's resource, then 404 not_found", async (method, path) => {
      const body = bodies[`${method.toLowerCase()} ${path}`];
      const res = await intruderApi.request(method, pathOf(path), body === undefined ? {} : { body });
      if (sessionOnly.has(`${method} ${path}`)) {
        // No API key may manage members, but another project's are not there for it at all: its
        // own project's answer is the 403 that says so.
        const own = await intruderApi.request(method, path.replace('{id}', intruder.projectId).replace('{userId}', intruder.userId), body === undefined ? {} : { body });
        expect({ status: own.status, name: own.body?.name }).toEqual({ status: 403, name: 'forbidden' });
      }
      expect({ status: res.status, name: res.body?.name }).toEqual({ status: 404, name: 'not_found' });
    });

    test.each(named)("when another project's console session calls %s %s with the owner's resource, then 404 not_found", async (method, path) => {
      const body = bodies[`${method.toLowerCase()} ${path}`];
      const res = await intruder.as.request(method, pathOf(path), body === undefined ? {} : { body });
      expect({ status: res.status, name: res.body?.name }).toEqual({ status: 404, name: 'not_found' });
    });

    test('when every probe has been made, then nothing of the owner changed: keys work, the email is still scheduled, the endpoint and the suppression are there', async () => {
      expect((await api.get('/api-keys', { token: secrets.get('spare key') })).status).toBe(200);
      expect((await ownerApi.get(`/emails/${mine.email}`)).body.status).toBe('scheduled');
      const webhook = (await ownerApi.get(`/webhooks/${mine.webhook}`)).body;
      expect(webhook).toMatchObject({ url: 'https://public.acme.test/hook', description: null, enabled: true });
      expect((await ownerApi.get(`/routes/${mine.route}`)).body.name).not.toBe('taken over');
      expect((await ownerApi.get(`/projects/${owner.projectId}`)).body.name).toBe('Acme');
      expect((await ownerApi.get(`/suppressions/${mine.suppression}`)).status).toBe(200);
      expect((await ownerApi.get(`/domains/${mine.domain}`)).status).toBe(200);
      expect((await ownerApi.get(`/webhooks/${mine.webhook}/attempts`)).body.data).toEqual([]);
      const { rows } = await db.query('SELECT * FROM webhooks WHERE id = $1', [mine.webhook]);
      for (const [column, value] of Object.entries(rows[0] as Record<string, unknown>)) {
        if (/secret/i.test(column) && typeof value === 'string') expect(value).toBe(secrets.get(`webhooks.${column}`));
      }
    });
  });

  describe('secrets', () => {
    test('when credentials are wrong, then the error names the problem without echoing what was sent', async () => {
      const forged = `mr_${'A'.repeat(43)}`;
      const wrongKey = await api.get('/webhooks', { token: forged });
      expect(wrongKey.status).toBe(403);
      expect(wrongKey.text).not.toContain('A'.repeat(43));
      const tamperedSession = `${owner.session.slice(0, -4)}AAAA`;
      const wrongSession = await api.get('/webhooks', { session: tamperedSession, project: owner.projectId });
      expect(wrongSession.status).toBe(401);
      expect(wrongSession.text).not.toContain(tamperedSession.split('.')[1]);
      const wrongPassword = await api.post('/auth/login', { email: owner.email, password: `${PASSWORD}!` });
      expect(wrongPassword.status).toBe(401);
      expect(wrongPassword.text).not.toContain(PASSWORD);
      const wrongMetrics = await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN.slice(0, -1)}x` } });
      expect(wrongMetrics.status).toBe(403);
      expect(await wrongMetrics.text()).not.toContain(METRICS_TOKEN.slice(0, -1));
    });

    test('when resources are read back, listed or changed, then no answer carries a secret: only creation and rotation show one, once', async () => {
      const answers = await Promise.all([
        ownerApi.get('/api-keys'),
        ownerApi.get('/webhooks'),
        ownerApi.get(`/webhooks/${mine.webhook}`),
        ownerApi.patch(`/webhooks/${mine.webhook}`, { description: null }),
        ownerApi.get(`/webhooks/${mine.webhook}/attempts`),
        ownerApi.get('/domains'),
        ownerApi.get(`/domains/${mine.domain}`),
        ownerApi.get('/projects'),
        owner.as.get('/projects'),
        ownerApi.get(`/emails/${mine.email}`),
      ]);
      for (const res of answers) {
        expect({ url: res.status, leaks: leaksIn(res.text) }).toEqual({ url: res.status, leaks: [] });
        expect(res.text).not.toMatch(/PRIVATE KEY|whsec_|"token"|"secret"/);
      }
    });

    test('when /metrics and the OpenAPI document are read, then neither carries a secret of this installation', async () => {
      const metrics = await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(metrics.status).toBe(200);
      expect(leaksIn(await metrics.text())).toEqual([]);
      const openapi = await fetch(`${gateway.url}/openapi.json`);
      expect(openapi.status).toBe(200);
      const document = await openapi.text();
      // signUp's fixed password is the document's own example ("correct horse battery"): not a secret of this installation.
      expect(leaksIn(document).filter((what) => what !== 'password')).toEqual([]);
      // Its examples are made up: no real token or secret shape beyond the documented placeholders.
      expect(document).not.toContain(TEST_SECRET_KEY);
    });

    test('when all of the above has run with logs at trace, then no log line carries a secret, a password or a ciphertext', async () => {
      await api.post('/auth/logout', {}, { session: secrets.get('login session') });
      expect(log.lines.length).toBeGreaterThan(50);
      const logged = log.lines.join('');
      expect(leaksIn(logged)).toEqual([]);
      expect(logged).not.toMatch(/PRIVATE KEY|whsec_|mr_[A-Za-z0-9_-]{20}/);
    });
  });
});
