import { type DnsZone, DnsServer } from '../../../test/support/dns-server';
import { createKey, signUp, startTestGateway, type TestGateway } from '../../../test/support/gateway';
import type { ApiClient } from '../../../test/support/http';
import { publish } from '../../../test/support/published-records';

const send = (from: string) => ({ from, to: 'delivered@sandbox.mailroom.test', subject: 'Hi', text: 'Hello' });

describe('sending domains', () => {
  let dns: DnsServer;
  let t: TestGateway;
  let api: ApiClient;

  beforeAll(async () => {
    dns = await new DnsServer().start();
    t = await startTestGateway({ label: 'domains', env: { ALLOW_SIGNUP: 'true', DNS_SERVERS: dns.address, DOMAIN_MX_HOST: 'mx.mailroom.example', DOMAIN_SPF_MECHANISMS: 'ip4:192.0.2.10' } });
    api = (await signUp(t.api)).as;
  });
  afterAll(async () => {
    await t.close();
    await dns.stop();
  });
  beforeEach(() => dns.setZone({}));

  test('when a domain is added, then it answers the records to publish, fully qualified, each pending, and never its private key', async () => {
    const res = await api.post('/domains', { name: 'Bücher.Example.' });

    expect(res.status).toBe(201);
    const domain = res.body;
    expect(domain).toMatchObject({ object: 'domain', id: expect.stringMatching(/^dom_/), name: 'xn--bcher-kva.example', status: 'pending', returnPathDomain: 'bounces.xn--bcher-kva.example' });
    const byRecord = Object.fromEntries(domain.records.map((r: any) => [r.record, r]));
    expect(Object.keys(byRecord)).toEqual(['verification', 'dkim', 'return_path_mx', 'return_path_spf', 'dmarc']);
    expect(byRecord.verification).toMatchObject({ type: 'TXT', name: '_mailroom.xn--bcher-kva.example', value: expect.stringMatching(/^mailroom-verification=\S{20,}$/), required: true, status: 'pending' });
    expect(byRecord.dkim).toMatchObject({ type: 'TXT', name: `${domain.dkimSelector}._domainkey.xn--bcher-kva.example`, value: expect.stringMatching(/^v=DKIM1; k=rsa; p=MIIB/), keyState: 'current' });
    expect(byRecord.return_path_mx).toMatchObject({ type: 'MX', name: 'bounces.xn--bcher-kva.example', value: 'mx.mailroom.example', priority: 10 });
    expect(byRecord.return_path_spf).toMatchObject({ type: 'TXT', name: 'bounces.xn--bcher-kva.example', value: 'v=spf1 ip4:192.0.2.10 -all' });
    expect(byRecord.dmarc).toMatchObject({ type: 'TXT', name: '_dmarc.xn--bcher-kva.example', required: false });
    // A 2048-bit key's record is over 255 bytes: also given as strings of at most 255.
    const strings = [...byRecord.dkim.splitValue.matchAll(/"([^"]*)"/g)].map((m: RegExpMatchArray) => m[1] as string);
    expect(strings.length).toBe(2);
    expect(strings.every((s) => Buffer.byteLength(s) <= 255)).toBe(true);
    expect(strings.join('')).toBe(byRecord.dkim.value);
    expect(JSON.stringify(domain)).not.toMatch(/PRIVATE|v1\./);

    expect((await api.get(`/domains/${domain.id}`)).body).toEqual(domain);
    expect((await api.get('/domains')).body).toMatchObject({ object: 'list', data: [{ id: domain.id }], hasMore: false });
    expect((await api.post('/domains', { name: 'xn--bcher-kva.example' })).body).toMatchObject({ name: 'conflict', statusCode: 409 });
    expect((await api.delete(`/domains/${domain.id}`)).body).toEqual({ object: 'domain', id: domain.id, deleted: true });
    expect((await api.get(`/domains/${domain.id}`)).status).toBe(404);
  });

  test.each([['127.0.0.1'], ['[::1]'], ['localhost'], ['co.uk'], ['acme..example'], [''], ['a'.repeat(400)], [42]])(
    'when the name is %j, then it is 422 naming the field',
    async (name) => {
      const res = await api.post('/domains', { name });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ name: 'validation_error', message: expect.stringContaining('name') });
    },
  );

  test("when another project's domain is read, verified, rotated or deleted, then it is 404", async () => {
    const other = (await signUp(t.api)).as;
    const { body: domain } = await other.post('/domains', { name: 'theirs.example' });
    for (const res of [
      await api.get(`/domains/${domain.id}`),
      await api.post(`/domains/${domain.id}/verify`),
      await api.post(`/domains/${domain.id}/rotate-dkim`),
      await api.delete(`/domains/${domain.id}`),
      await api.get('/domains/dom_nonsense'),
    ]) {
      expect(res.body).toMatchObject({ name: 'not_found', statusCode: 404 });
    }
    expect((await other.get(`/domains/${domain.id}`)).status).toBe(200);
  });

  test('when the DNS server starts answering the records, then each moves from pending to verified, and back to failed when they go, with a domain.updated event each time', async () => {
    const { body: added } = await api.post('/domains', { name: 'flips.example' });
    const pending = (await api.post(`/domains/${added.id}/verify`)).body;
    expect(pending.status).toBe('pending');
    expect(pending.records.map((r: any) => r.status)).toEqual(['pending', 'pending', 'pending', 'pending', 'pending']);
    expect(pending.records[0].found).toEqual([]);

    dns.setZone(publish(added.records));
    const verified = (await api.post(`/domains/${added.id}/verify`)).body;
    expect(verified).toMatchObject({ status: 'verified', verifiedAt: expect.any(String) });
    expect(verified.records.map((r: any) => r.status)).toEqual(['verified', 'verified', 'verified', 'verified', 'verified']);
    expect(verified.records[2].found).toEqual(['10 mx.mailroom.example']);

    dns.setZone({});
    const failed = (await api.post(`/domains/${added.id}/verify`)).body;
    expect(failed.status).toBe('failed');
    expect(failed.records.map((r: any) => r.status)).toEqual(['failed', 'failed', 'failed', 'failed', 'failed']);

    const { rows } = await t.gateway.ctx.pool.query<{ type: string; data: any }>({
      text: 'SELECT type, data FROM email_events WHERE domain_id = $1 ORDER BY position',
      values: [added.id],
    });
    expect(rows.map((r) => [r.type, r.data.status])).toEqual([['domain.updated', 'verified'], ['domain.updated', 'failed']]);
    expect(rows[1]?.data).toEqual(failed);
  });

  test('when a record holds something else, then it is failed and says what was found', async () => {
    const { body: added } = await api.post('/domains', { name: 'wrong.example' });
    const zone: DnsZone = publish(added.records);
    zone['bounces.wrong.example'] = { ...zone['bounces.wrong.example'], TXT: ['v=spf1 ip4:198.51.100.1 -all'] };
    dns.setZone(zone);
    const checked = (await api.post(`/domains/${added.id}/verify`)).body;
    expect(checked.status).toBe('pending');
    expect(checked.records.find((r: any) => r.record === 'return_path_spf')).toMatchObject({ status: 'failed', found: ['v=spf1 ip4:198.51.100.1 -all'] });
  });

  test('when two projects add the same domain, then only the first to verify gets it, and the other once the first lets go', async () => {
    const first = (await signUp(t.api)).as;
    const second = (await signUp(t.api)).as;
    const a = (await first.post('/domains', { name: 'contested.example' })).body;
    const b = (await second.post('/domains', { name: 'contested.example' })).body;
    expect(a.records[0].value).not.toEqual(b.records[0].value);
    expect(a.dkimSelector).not.toEqual(b.dkimSelector);
    // The zone holds both projects' records, as when the owner published both.
    dns.setZone(publish(b.records.filter((r: any) => r.record !== 'return_path_mx' && r.record !== 'return_path_spf'), publish(a.records)));

    expect((await second.post(`/domains/${b.id}/verify`)).body).toMatchObject({ status: 'verified', claimedByAnotherProject: false });
    expect((await first.post(`/domains/${a.id}/verify`)).body).toMatchObject({ status: 'pending', claimedByAnotherProject: true });

    await second.delete(`/domains/${b.id}`);
    expect((await first.post(`/domains/${a.id}/verify`)).body).toMatchObject({ status: 'verified', claimedByAnotherProject: false });
  });

  describe('with REQUIRE_VERIFIED_DOMAINS (production)', () => {
    let prod: TestGateway;
    let owner: ApiClient;
    let other: ApiClient;

    beforeAll(async () => {
      prod = await startTestGateway({ label: 'domainsprod', env: { NODE_ENV: 'production', DNS_SERVERS: dns.address, DOMAIN_MX_HOST: 'mx.mailroom.test', DOMAIN_SPF_MECHANISMS: 'ip4:127.0.0.1' } });
      const user = await signUp(prod.api);
      owner = prod.api.as({ token: (await createKey(user.as)).token });
      const second = await user.as.post('/projects', { name: 'Other' });
      other = prod.api.as({ session: user.session, project: second.body.id });
    });
    afterAll(() => prod.close());

    test("when sending from an unverified domain, from another project's verified domain, or routing an unverified domain, then each is 403 domain_not_verified and nothing is stored; once verified, the owner's work and say nothing of unsigned", async () => {
      const refused = { name: 'domain_not_verified', statusCode: 403 };
      expect((await owner.post('/emails', send('Ada <ada@mine.example>'))).body).toMatchObject(refused);
      expect((await owner.post('/emails/batch', [send('ada@mine.example'), send('ada@other.example')])).body).toMatchObject(refused);
      expect((await owner.post('/routes', { match: '*@mine.example' })).body).toMatchObject(refused);
      expect((await owner.post('/routes', { match: 'support@mine.example' })).body).toMatchObject(refused);

      const domain = (await owner.post('/domains', { name: 'mine.example' })).body;
      dns.setZone(publish(domain.records));
      expect((await owner.post(`/domains/${domain.id}/verify`)).body.status).toBe('verified');
      expect((await owner.post('/emails', send('Ada <ada@Mine.Example>'))).body).toEqual({ id: expect.stringMatching(/^em_/) });
      expect((await owner.post('/emails/batch', [send('ada@mine.example')])).body).toEqual({ data: [{ id: expect.stringMatching(/^em_/) }] });
      expect((await owner.post('/routes', { match: '*@mine.example' })).status).toBe(201);

      // The domain is verified, but in another project.
      expect((await other.post('/emails', send('ada@mine.example'))).body).toMatchObject(refused);
      expect((await other.post('/routes', { match: 'help@mine.example' })).body).toMatchObject(refused);
      expect((await other.get('/emails')).body.data).toEqual([]);
      expect((await other.get('/routes')).body.data).toEqual([]);
      expect((await owner.get('/emails')).body.data).toHaveLength(2);
    });
  });

  test('when REQUIRE_VERIFIED_DOMAINS is off (development), then sends and routes on any domain work, and the answer says the mail is unsigned', async () => {
    expect((await api.post('/emails', send('ada@nowhere.example'))).body).toEqual({ id: expect.stringMatching(/^em_/), unsigned: true });
    expect((await api.post('/emails/batch', [send('ada@nowhere.example')])).body).toEqual({ data: [{ id: expect.stringMatching(/^em_/), unsigned: true }] });
    expect((await api.post('/routes', { match: '*@nowhere.example' })).status).toBe(201);
  });
});
