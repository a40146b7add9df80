import { DnsServer, type DnsZone } from '../../../test/support/dns-server';
import { publish } from '../../../test/support/published-records';
import { startSendingStack, waitForEmail, type SendingStack } from '../../../test/support/sending';
import { SmtpSink } from '../../../test/support/smtp-sink';

// With REQUIRE_VERIFIED_DOMAINS on, a send is checked when it is accepted and again when it is
// due: mail scheduled (or deferred) while its domain was verified must not go out once the
// project has lost it (deleted, its records gone, perhaps verified by another project since).
let dns: DnsServer;
let sink: SmtpSink;
let s: SendingStack;
// What the test DNS server holds.
let published: DnsZone = {};
const setZone = (zone: DnsZone) => {
  published = zone;
  dns.setZone(zone);
};

beforeAll(async () => {
  dns = await new DnsServer().start();
  sink = await new SmtpSink({ starttls: false }).start();
  s = await startSendingStack('domainlost', {
    OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
    DNS_SERVERS: dns.address,
    REQUIRE_VERIFIED_DOMAINS: 'true',
    // Ten seconds of retries: long enough to verify the domain again within them.
    SMTP_RETRY_SCHEDULE: '2,2,2,2,2',
  });
});
afterAll(async () => {
  await s.close();
  await sink.stop();
  await dns.stop();
});

async function verifiedDomain(name: string) {
  const { body: added } = await s.api.post('/domains', { name });
  const zone = publish(added.records);
  setZone({ ...published, ...zone });
  expect((await s.api.post(`/domains/${added.id}/verify`)).body.status).toBe('verified');
  return { id: added.id as string, zone };
}

const scheduled = (from: string, subject: string) =>
  s.api.post('/emails', { from, to: 'alice@example.com', subject, text: 'Hello', scheduledAt: new Date(Date.now() + 1_500).toISOString() });
const received = (subject: string) => sink.messages.filter((m) => m.raw.toString('latin1').includes(`Subject: ${subject}`));

test('when the domain is deleted after a send was scheduled, then the mail is never sent and fails at the end of the retry schedule, saying why', async () => {
  const domain = await verifiedDomain('gone.example');
  const { body } = await scheduled('CEO <ceo@gone.example>', 'Scheduled before the delete');
  expect(body.id).toMatch(/^em_/);
  expect((await s.api.delete(`/domains/${domain.id}`)).status).toBe(200);
  // Refused now at the API, as before.
  expect((await s.api.post('/emails', { from: 'ceo@gone.example', to: 'alice@example.com', subject: 'x', text: 'x' })).status).toBe(403);

  const email = await waitForEmail(s.api, body.id, (e) => e.status === 'failed', 30_000);
  expect(email.recipients[0]).toMatchObject({ status: 'failed', lastResponse: expect.stringContaining('not verified in this project') });
  expect(email.events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['email.delivery_delayed', 'email.failed']));
  expect(received('Scheduled before the delete')).toEqual([]);
});

test('when the domain fails while a send waits and is verified again within the retry schedule, then the mail goes out then, signed', async () => {
  const domain = await verifiedDomain('flaky.example');
  const { body } = await scheduled('news@flaky.example', 'Through a failed check');
  // A record gone: the next check fails the domain.
  setZone(Object.fromEntries(Object.entries(published).filter(([name]) => !name.endsWith('._domainkey.flaky.example'))));
  expect((await s.api.post(`/domains/${domain.id}/verify`)).body.status).toBe('failed');

  await waitForEmail(s.api, body.id, (e) => e.recipients[0]?.status === 'delivery_delayed', 15_000);
  expect(received('Through a failed check')).toEqual([]);
  setZone({ ...published, ...domain.zone });
  expect((await s.api.post(`/domains/${domain.id}/verify`)).body.status).toBe('verified');

  await waitForEmail(s.api, body.id, (e) => e.status === 'delivered', 20_000);
  const [message] = received('Through a failed check');
  expect(message?.raw.toString('latin1')).toMatch(/DKIM-Signature:[\s\S]*d=flaky\.example/);
  expect(message?.from).toMatch(/@bounces\.flaky\.example$/);
});
