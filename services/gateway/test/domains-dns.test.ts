import { splitTxtValue } from '@mailroom/core';
import { DnsServer } from '../../../test/support/dns-server';
import { signUp, startTestGateway, type TestGateway } from '../../../test/support/gateway';
import type { ApiClient } from '../../../test/support/http';
import { publish } from '../../../test/support/published-records';

// Domain verification (`POST /domains/{id}/verify`) through DNS_SERVERS when the server sends
// every UDP answer truncated (TC=1, no records): only a retry over TCP (RFC 7766 §5) sees them.

describe('sending domains behind a DNS server that truncates every UDP answer', () => {
  let dns: DnsServer;
  let t: TestGateway;
  let api: ApiClient;

  beforeAll(async () => {
    dns = await new DnsServer({ truncate: 'all' }).start();
    t = await startTestGateway({ label: 'domainsdns', env: { ALLOW_SIGNUP: 'true', DNS_SERVERS: dns.address, DOMAIN_MX_HOST: 'mx.mailroom.example', DOMAIN_SPF_MECHANISMS: 'ip4:192.0.2.10' } });
    api = (await signUp(t.api)).as;
  });
  afterAll(async () => {
    await t.close();
    await dns.stop();
  });

  test('when the records are published, then verify reads them over TCP and the domain is verified', async () => {
    const { body: added } = await api.post('/domains', { name: 'truncated.example' });
    dns.setZone(publish(added.records));

    const verified = (await api.post(`/domains/${added.id}/verify`)).body;

    expect(verified.status).toBe('verified');
    expect(verified.records.map((r: { record: string; status: string }) => [r.record, r.status])).toEqual([
      ['verification', 'verified'],
      ['dkim', 'verified'],
      ['return_path_mx', 'verified'],
      ['return_path_spf', 'verified'],
      ['dmarc', 'verified'],
    ]);
    const dkimName = added.records.find((r: { record: string }) => r.record === 'dkim').name;
    expect(dns.truncated).toEqual(expect.arrayContaining([{ name: `_mailroom.truncated.example`, type: 'TXT' }, { name: dkimName, type: 'TXT' }]));
    expect(dns.tcpQueries).toEqual(
      expect.arrayContaining([
        { name: '_mailroom.truncated.example', type: 'TXT' },
        { name: dkimName, type: 'TXT' },
        { name: 'bounces.truncated.example', type: 'MX' },
        { name: 'bounces.truncated.example', type: 'TXT' },
      ]),
    );
  });

  test('when the DKIM record is published as an alias of a record holding the key, then verify follows it and the domain is verified', async () => {
    const { body: added } = await api.post('/domains', { name: 'aliased.example' });
    const dkim = added.records.find((r: { record: string }) => r.record === 'dkim');
    const zone = publish(added.records.filter((r: { record: string }) => r.record !== 'dkim'));
    zone[dkim.name] = { CNAME: 'dkim.keys.provider.example' };
    zone['dkim.keys.provider.example'] = publish([dkim])[dkim.name] ?? {};
    dns.setZone(zone);

    const verified = (await api.post(`/domains/${added.id}/verify`)).body;

    expect(verified.status).toBe('verified');
    expect(verified.records.find((r: { record: string }) => r.record === 'dkim')).toMatchObject({ status: 'verified' });
  });

  test('when the records are there but receivers could not use them, then verify marks each failed and shows what was found', async () => {
    const { body: added } = await api.post('/domains', { name: 'unusable.example' });
    const byRecord = (name: string) => added.records.find((r: { record: string }) => r.record === name);
    const dkim = byRecord('dkim');
    const zone = publish(added.records);
    // The right key under an ed25519 k=, SPF that lets every address pass, and a backup MX preferred to ours.
    zone[dkim.name] = { TXT: [splitTxtValue(dkim.value.replace('k=rsa', 'k=ed25519'))] };
    zone['bounces.unusable.example'] = { TXT: ['v=spf1 ip4:192.0.2.10 +all'], MX: [{ preference: 10, exchange: 'mx.mailroom.example' }, { preference: 5, exchange: 'mx.elsewhere.example' }] };
    dns.setZone(zone);

    const checked = (await api.post(`/domains/${added.id}/verify`)).body;

    expect(checked.status).toBe('pending');
    const status = (name: string) => checked.records.find((r: { record: string }) => r.record === name);
    expect(status('verification')).toMatchObject({ status: 'verified' });
    expect(status('dkim')).toMatchObject({ status: 'failed', found: [expect.stringContaining('k=ed25519')] });
    expect(status('return_path_spf')).toMatchObject({ status: 'failed', found: ['v=spf1 ip4:192.0.2.10 +all'] });
    expect(status('return_path_mx')).toMatchObject({ status: 'failed', found: ['5 mx.elsewhere.example', '10 mx.mailroom.example'] });
  });
});
