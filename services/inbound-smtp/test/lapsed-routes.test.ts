import { DnsServer, type DnsZone } from '../../../test/support/dns-server';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { signUp, startTestGateway, type TestGateway } from '../../../test/support/gateway';
import type { ApiClient } from '../../../test/support/http';
import { publish } from '../../../test/support/published-records';
import { expectCode, RawSmtp, startTestMx, type TestMx } from './smtp-support';

// With REQUIRE_VERIFIED_DOMAINS on, a route takes mail only while its project holds the route's
// domain verified: a project that deleted the domain (or lost its records) must not go on
// receiving its mail, least of all once another project has verified the name.
let database: TestDatabase;
let dns: DnsServer;
let t: TestGateway;
let mx: TestMx;
let zone: DnsZone = {};

beforeAll(async () => {
  database = await createTestDatabase('lapsedroutes');
  dns = await new DnsServer().start();
  const env = { REQUIRE_VERIFIED_DOMAINS: 'true', ALLOW_SIGNUP: 'true', DNS_SERVERS: dns.address, ALLOW_PRIVATE_NETWORKS: 'true' };
  t = await startTestGateway({ database, env });
  mx = await startTestMx({ database, env });
});
afterAll(async () => {
  await mx.close();
  await t.close();
  await dns.stop();
  await database.drop();
});

/** Adds and verifies the domain, its records replacing any an earlier holder published. */
async function verify(api: ApiClient, name: string): Promise<string> {
  const { body: added } = await api.post('/domains', { name });
  zone = publish(added.records, Object.fromEntries(Object.entries(zone).filter(([host]) => host !== name && !host.endsWith(`.${name}`))));
  dns.setZone(zone);
  expect((await api.post(`/domains/${added.id}/verify`)).body.status).toBe('verified');
  return added.id;
}

async function rcpt(address: string): Promise<string> {
  const smtp = await RawSmtp.open(mx.mx.port);
  try {
    await smtp.reply();
    expectCode(await smtp.command('EHLO client.example'), 250);
    expectCode(await smtp.command('MAIL FROM:<alice@example.net>'), 250);
    return await smtp.command(`RCPT TO:<${address}>`);
  } finally {
    await smtp.command('QUIT').catch(() => undefined);
  }
}

test('when a project deletes its domain, then its route refuses mail for now (450), and the project that verifies the name next takes the route over and receives it', async () => {
  const a = await signUp(t.api);
  const b = await signUp(t.api);
  const domainA = await verify(a.as, 'handover.example');
  const routeA = await a.as.post('/routes', { match: '*@handover.example' });
  expect(routeA.status).toBe(201);
  expectCode(await rcpt('first@handover.example'), 250);

  expect((await a.as.delete(`/domains/${domainA}`)).status).toBe(200);
  const lapsed = await rcpt('sales@handover.example');
  expectCode(lapsed, 450);
  expect(lapsed).toContain('4.7.1');

  await verify(b.as, 'handover.example');
  const routeB = await b.as.post('/routes', { match: '*@handover.example' });
  expect(routeB.status).toBe(201);
  expect((await a.as.get(`/routes/${routeA.body.id}`)).status).toBe(404);
  expectCode(await rcpt('info@handover.example'), 250);
  // A project without the domain still cannot claim the match.
  const c = await signUp(t.api);
  expect((await c.as.post('/routes', { match: '*@handover.example' })).status).toBe(403);
});

test('when the lapsed route has webhook endpoints scoped to it, then it is not taken over (409), and it still refuses mail', async () => {
  const a = await signUp(t.api);
  const b = await signUp(t.api);
  const domainA = await verify(a.as, 'scoped.example');
  const route = (await a.as.post('/routes', { match: 'support@scoped.example' })).body;
  const hook = await a.as.post('/webhooks', { url: 'http://127.0.0.1:9/in', events: ['email.received'], routeId: route.id });
  expect(hook.status).toBe(201);
  expect((await a.as.delete(`/domains/${domainA}`)).status).toBe(200);

  await verify(b.as, 'scoped.example');
  expect((await b.as.post('/routes', { match: 'support@scoped.example' })).status).toBe(409);
  expectCode(await rcpt('support@scoped.example'), 450);
  // B's wildcard takes the domain's other addresses, and is preferred over A's lapsed exact route.
  expect((await b.as.post('/routes', { match: '*@scoped.example' })).status).toBe(201);
  expectCode(await rcpt('support+tag@scoped.example'), 250);
});
