import type { Resolver } from 'node:dns/promises';
import { DnsServer, type DnsZone } from '../../../test/support/dns-server';
import { lookupRecord, nextRecordCheck, type RecordCheck } from './check-domain-records';
import { generateDkimKey } from './dkim-key';
import { createResolver } from './dns-resolver';
import { type DomainDnsSettings, type ExpectedRecord, expectedRecords, splitTxtValue } from './domain-records';

// Every record is looked up through a real node:dns Resolver against the test DNS server, and
// judged as a receiver would: dkimpy and pyspf gave the verdicts these tests expect.

const SETTINGS: DomainDnsSettings = { mxHost: 'mx.mailroom.test', spfMechanisms: 'ip4:127.0.0.1', returnPathLabel: 'bounces' };
// Short waits: a silent name times out in about a second (two tries).
const DNS_TIMEOUT_MS = 300;

describe('lookupRecord', () => {
  const dns = new DnsServer();
  const failing = new DnsServer({
    servfail: ['bounces.servfail.example', '_dmarc.servfail.example', 'spf.broken-provider.example', 'sel._domainkey.servfail.example', '_dmarc.orgfail.example'],
    silent: ['bounces.silent.example', 'spf.slow-provider.example', 'sel._domainkey.silent.example'],
  });
  let resolver: Resolver;
  let failingResolver: Resolver;
  let key: string;
  let otherKey: string;

  beforeAll(async () => {
    await Promise.all([dns.start(), failing.start()]);
    resolver = createResolver([dns.address], DNS_TIMEOUT_MS);
    failingResolver = createResolver([failing.address], DNS_TIMEOUT_MS);
    [key, otherKey] = (await Promise.all([generateDkimKey(), generateDkimKey()])).map((k) => k.publicKey) as [string, string];
  });
  afterAll(() => Promise.all([dns.stop(), failing.stop()]));

  /** The records acme.example (or `name`) is asked to publish. */
  const records = (name = 'acme.example', settings: DomainDnsSettings = SETTINGS) =>
    expectedRecords({ name, verificationToken: 'tok123', dkim: { selector: 'sel', publicKey: key }, nextDkim: null, previousDkim: null }, settings);
  const recordOf = (purpose: ExpectedRecord['purpose'], name?: string, settings?: DomainDnsSettings) =>
    records(name, settings).find((r) => r.purpose === purpose) as ExpectedRecord;
  const look = (record: ExpectedRecord, zone: DnsZone) => {
    dns.setZone(zone);
    return lookupRecord(resolver, record);
  };

  describe('DKIM key record', () => {
    const dkim = () => recordOf('dkim');
    // A TXT string holds at most 255 bytes: longer records are published as several.
    const at = (...txt: Array<string | string[]>): DnsZone => ({ 'sel._domainkey.acme.example': { TXT: txt.map((t) => (typeof t === 'string' ? splitTxtValue(t) : t)) } });

    test.each([
      ['as given', () => `v=DKIM1; k=rsa; p=${key}`],
      ['with FWS around tags, in the key and a trailing ;', () => `v=DKIM1 ;  k = rsa;\tp= ${key.slice(0, 100)} ${key.slice(100)} ;`],
      ['without v=', () => `k=rsa; p=${key}`],
      ['with p= alone', () => `p=${key}`],
      ['with t=y', () => `v=DKIM1; k=rsa; t=y; p=${key}`],
      ['with t=s', () => `v=DKIM1; t=s; k=rsa; p=${key}`],
      ['with t=y:s, h=sha256, s=email, n= notes', () => `v=DKIM1; h=sha1:sha256; s=email; t=y:s; n=rotated_2026; p=${key}; k=rsa`],
      ['with s=*', () => `v=DKIM1; s=*; p=${key}`],
      ['with tags in another order, v= first', () => `v=DKIM1; p=${key}; k=rsa`],
    ])('when the key record is published %s, then it is verified', async (_label, value) => {
      expect(await look(dkim(), at(value()))).toEqual({ outcome: 'match', found: [value()] });
    });

    test('when the key record is published as strings split anywhere, then they are joined and it is verified', async () => {
      const value = `v=DKIM1; k=rsa; p=${key}`;
      const strings = [value.slice(0, 10), value.slice(10, 200), value.slice(200)];
      expect(await look(dkim(), at(strings))).toMatchObject({ outcome: 'match', found: [value] });
    });

    test('when the selector is an alias of a record holding the key, then it is followed and verified', async () => {
      const lookup = await look(dkim(), { 'sel._domainkey.acme.example': { CNAME: 'keys.provider.example' }, 'keys.provider.example': { TXT: [splitTxtValue(`v=DKIM1; k=rsa; p=${key}`)] } });
      expect(lookup.outcome).toBe('match');
    });

    test.each([
      ['tags in upper case', () => `V=DKIM1; K=rsa; P=${key}`, /tags are case-sensitive: V= is not v=/],
      ['k=ed25519', () => `v=DKIM1; k=ed25519; p=${key}`, /k= is ed25519, not rsa/],
      ['s=other', () => `v=DKIM1; k=rsa; s=other; p=${key}`, /s= is other: it is not for email/],
      ['v=DKIM2', () => `v=DKIM2; k=rsa; p=${key}`, /v= is "DKIM2", not DKIM1/],
      ['v=DKIM1 not first', () => `k=rsa; v=DKIM1; p=${key}`, /not as its first tag/],
      ['v=dkim1 in lower case', () => `v=dkim1; k=rsa; p=${key}`, /v= is "dkim1"/],
      ['h=sha1', () => `v=DKIM1; k=rsa; h=sha1; p=${key}`, /h= is sha1: it does not allow sha256/],
      ['another key', () => `v=DKIM1; k=rsa; p=${otherKey}`, /p= is not this domain's key/],
      ['an empty p= (revoked)', () => 'v=DKIM1; k=rsa; p=', /revoked/],
      ['an empty tag (;;)', () => `v=DKIM1;; k=rsa; p=${key}`, /not a tag=value pair/],
      ['p= twice', () => `v=DKIM1; p=${key}; p=${key}`, /p= appears twice/],
      ['a tag name starting with a digit', () => `v=DKIM1; 1k=rsa; p=${key}`, /not a tag=value pair/],
    ])('when the key record has %s, then it is a mismatch that says why', async (_label, value, reason) => {
      const lookup = await look(dkim(), at(value()));
      expect(lookup).toMatchObject({ outcome: 'mismatch', found: [value().slice(0, 512) + (value().length > 512 ? '…' : '')] });
      expect(lookup.reason).toMatch(reason);
    });

    test('when two key records are at the selector, one of them ours, then it is a mismatch naming both', async () => {
      const lookup = await look(dkim(), at(`v=DKIM1; k=rsa; p=${key}`, `v=DKIM1; k=rsa; p=${otherKey}`));
      expect(lookup.outcome).toBe('mismatch');
      expect(lookup.found).toHaveLength(2);
      expect(lookup.reason).toMatch(/2 key records at sel\._domainkey\.acme\.example: a verifier may use any of them/);
    });

    test('when the selector has no key record, or only other TXT, then it is missing', async () => {
      expect(await look(dkim(), {})).toEqual({ outcome: 'missing', found: [] });
      expect(await look(dkim(), at('google-site-verification=abc'))).toEqual({ outcome: 'missing', found: ['google-site-verification=abc'] });
    });

    test('when DNS answers SERVFAIL or nothing, then it is unknown', async () => {
      expect((await lookupRecord(failingResolver, recordOf('dkim', 'servfail.example'))).outcome).toBe('unknown');
      expect((await lookupRecord(failingResolver, recordOf('dkim', 'silent.example'))).outcome).toBe('unknown');
    });
  });

  describe('return-path SPF record', () => {
    const spf = (settings?: DomainDnsSettings) => recordOf('return_path_spf', 'acme.example', settings);
    const at = (zone: DnsZone, ...txt: string[]): DnsZone => ({ ...zone, 'bounces.acme.example': { TXT: txt.map(splitTxtValue) } });
    // Eleven includes, each a lookup of its own: one more than RFC 7208 §4.6.4 allows.
    const elevenIncludes = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`l${i}.provider.example`, { TXT: ['v=spf1 ip4:203.0.113.77 -all'] }]));
    const includes = Array.from({ length: 11 }, (_, i) => `include:l${i}.provider.example`).join(' ');
    const provider: DnsZone = {
      '_spf.provider.example': { TXT: ['v=spf1 ip4:127.0.0.1 -all'] },
      'broken.provider.example': { TXT: ['v=spf1 ip4:127.0.0.1 ip4:300.1.1.1 -all'] },
      ...elevenIncludes,
    };

    test.each([
      'v=spf1 ip4:127.0.0.1 -all',
      'v=spf1 ip4:127.0.0.1 ~all',
      'v=spf1  ip4:127.0.0.1   -all ',
      'v=spf1 ip4:127.0.0.1 ip4:203.0.113.9 -all',
      'v=spf1 include:_spf.provider.example -all',
      'v=spf1 redirect=_spf.provider.example',
      'V=SPF1 IP4:127.0.0.1 -ALL',
    ])('when the record is "%s", then our address passes, others do not, and it is verified', async (value) => {
      expect(await look(spf(), at(provider, value, 'google-site-verification=abc'))).toEqual({ outcome: 'match', found: [value, 'google-site-verification=abc'] });
    });

    test.each([
      ['v=spf1 -all ip4:127.0.0.1', /evaluates to fail for 127\.0\.0\.1, one of our sending addresses \(ip4:127\.0\.0\.1\): ip4:127\.0\.0\.1 comes after -all, and nothing after all is ever tested/],
      ['v=spf1 ip4:198.51.100.1 -all', /evaluates to fail for 127\.0\.0\.1/],
      ['v=spf1 ip4:127.0.0.1 foo:bar -all', /permerror: a syntax error, "foo:bar": not a known mechanism/],
      ['v=spf1 ip4:127.0.0.1 ip4:1.2.3.4/33 -all', /permerror: a syntax error, "ip4:1\.2\.3\.4\/33": the prefix length is not 0-32/],
      ['v=spf1 a:localhost ip4:127.0.0.1 -all', /permerror: a syntax error, "a:localhost": not a fully qualified domain name/],
      ['v=spf1 ip4:127.0.0.1 redirect=a.example redirect=b.example', /redirect= appears more than once/],
      ['v=spf1 include:nonexistent.invalid ip4:127.0.0.1 -all', /evaluates to permerror for 127\.0\.0\.1, .*nonexistent\.invalid/],
      [`v=spf1 ${includes} ip4:127.0.0.1 -all`, /evaluates to permerror for 127\.0\.0\.1, .*Too many DNS requests/],
      [`v=spf1 ip4:127.0.0.1 ${includes} -all`, /evaluates to permerror for 192\.0\.2\.1, an address not ours: Too many DNS requests/],
      ['v=spf1 include:broken.provider.example -all', /permerror: a syntax error in broken\.provider\.example: "ip4:300\.1\.1\.1": not an IPv4 address/],
      ['v=spf1 ip4:127.0.0.1 +all', /passes for 192\.0\.2\.1, an address that is not ours: \+all lets every address on the internet pass/],
      ['v=spf1 ip4:127.0.0.1 all', /passes for 192\.0\.2\.1.*\+all/],
      ['v=spf1 ip4:0.0.0.0/0 -all', /passes for 192\.0\.2\.1, an address that is not ours: the record authorizes more than our senders/],
      ['v=spf1 ip4:127.0.0.1 ip6:::/0 -all', /passes for 2001:db8:ffff::1/],
      ['v=spf1 redirect=nonexistent.invalid', /evaluates to permerror for 127\.0\.0\.1/],
    ])('when the record is "%s", then it is a mismatch that says why', async (value, reason) => {
      const lookup = await look(spf(), at(provider, value));
      expect(lookup).toMatchObject({ outcome: 'mismatch', found: [value] });
      expect(lookup.reason).toMatch(reason);
    });

    test('when two SPF records are published, then it is a mismatch (permerror)', async () => {
      const lookup = await look(spf(), at({}, 'v=spf1 ip4:127.0.0.1 -all', 'v=spf1 include:_spf.provider.example -all'));
      expect(lookup).toMatchObject({ outcome: 'mismatch', reason: expect.stringMatching(/permerror: 2 v=spf1 records/) });
    });

    test('when no SPF record is published, then it is missing', async () => {
      expect(await look(spf(), {})).toEqual({ outcome: 'missing', found: [] });
      expect(await look(spf(), at({}, 'v=spf10 nothing'))).toEqual({ outcome: 'missing', found: ['v=spf10 nothing'] });
    });

    test('when our mechanisms are a range and an IPv6 address, then the first and last of the range and the IPv6 address must pass', async () => {
      const settings = { ...SETTINGS, spfMechanisms: 'ip4:198.51.100.0/24 ip6:2001:db8::1' };
      expect((await look(spf(settings), at({}, 'v=spf1 ip6:2001:db8::1 ip4:198.51.100.0/24 -all'))).outcome).toBe('match');
      const narrow = await look(spf(settings), at({}, 'v=spf1 ip4:198.51.100.0/25 ip6:2001:db8::1 -all'));
      expect(narrow).toMatchObject({ outcome: 'mismatch', reason: expect.stringMatching(/fail for 198\.51\.100\.255, one of our sending addresses \(ip4:198\.51\.100\.0\/24\)/) });
      const noV6 = await look(spf(settings), at({}, 'v=spf1 ip4:198.51.100.0/24 -all'));
      expect(noV6).toMatchObject({ outcome: 'mismatch', reason: expect.stringMatching(/fail for 2001:db8::1/) });
    });

    describe("with a smarthost's include: as our mechanism", () => {
      const settings = { ...SETTINGS, spfMechanisms: 'include:spf.smarthost.example' };
      const smarthost: DnsZone = {
        'spf.smarthost.example': { TXT: ['v=spf1 ip4:203.0.113.0/28 a:out.smarthost.example mx:smarthost.example -all'] },
        'out.smarthost.example': { A: ['203.0.113.200'] },
        'smarthost.example': { MX: [{ preference: 10, exchange: 'mx1.smarthost.example' }] },
        'mx1.smarthost.example': { A: ['203.0.113.150'], AAAA: ['2001:db8:5::1'] },
        '_spf.alias.example': { TXT: ['v=spf1 redirect=spf.smarthost.example'] },
      };

      test('when the record includes it, or redirects to a record that does, then the addresses it authorizes pass and it is verified', async () => {
        expect((await look(spf(settings), at(smarthost, 'v=spf1 include:spf.smarthost.example -all'))).outcome).toBe('match');
        expect((await look(spf(settings), at(smarthost, 'v=spf1 include:_spf.alias.example -all'))).outcome).toBe('match');
        expect((await look(spf(settings), at(smarthost, 'v=spf1 redirect=_spf.alias.example'))).outcome).toBe('match');
      });

      test('when the record copies only some of its addresses, then the others fail and it is a mismatch', async () => {
        const lookup = await look(spf(settings), at(smarthost, 'v=spf1 ip4:203.0.113.0/28 -all'));
        expect(lookup).toMatchObject({ outcome: 'mismatch', reason: expect.stringMatching(/fail for 203\.0\.113\.200, one of our sending addresses \(include:spf\.smarthost\.example\)/) });
      });

      test('when DNS does not answer for it, then it is unknown, not failed', async () => {
        const broken = { ...SETTINGS, spfMechanisms: 'include:spf.broken-provider.example' };
        failing.setZone({ 'bounces.acme.example': { TXT: ['v=spf1 include:spf.broken-provider.example -all'] } });
        expect((await lookupRecord(failingResolver, recordOf('return_path_spf', 'acme.example', broken))).outcome).toBe('unknown');
        const slow = { ...SETTINGS, spfMechanisms: 'include:spf.slow-provider.example' };
        failing.setZone({ 'bounces.acme.example': { TXT: ['v=spf1 include:spf.slow-provider.example -all'] } });
        expect((await lookupRecord(failingResolver, recordOf('return_path_spf', 'acme.example', slow))).outcome).toBe('unknown');
      });
    });

    test('when an include of the published record does not answer, then it is unknown, not failed', async () => {
      failing.setZone({ 'bounces.acme.example': { TXT: ['v=spf1 include:spf.broken-provider.example ip4:127.0.0.1 -all'] } });
      expect((await lookupRecord(failingResolver, spf())).outcome).toBe('unknown');
      failing.setZone({ 'bounces.acme.example': { TXT: ['v=spf1 include:spf.slow-provider.example ip4:127.0.0.1 -all'] } });
      expect((await lookupRecord(failingResolver, spf())).outcome).toBe('unknown');
    });

    test('when the record itself gets SERVFAIL or no answer, then it is unknown', async () => {
      failing.setZone({});
      expect(await lookupRecord(failingResolver, recordOf('return_path_spf', 'servfail.example'))).toEqual({ outcome: 'unknown', found: [] });
      expect(await lookupRecord(failingResolver, recordOf('return_path_spf', 'silent.example'))).toEqual({ outcome: 'unknown', found: [] });
    });

    test('when our mechanism authorizes no address that can be found (exists:), then the record must name it', async () => {
      const settings = { ...SETTINGS, spfMechanisms: 'include:spf.macro.example' };
      const zone = { 'spf.macro.example': { TXT: ['v=spf1 exists:%{i}.allow.macro.example -all'] } };
      expect((await look(spf(settings), at(zone, 'v=spf1 include:spf.macro.example -all'))).outcome).toBe('match');
      const lookup = await look(spf(settings), at(zone, 'v=spf1 ip4:127.0.0.1 -all'));
      expect(lookup).toMatchObject({ outcome: 'mismatch', reason: expect.stringMatching(/does not name include:spf\.macro\.example/) });
    });
  });

  describe('return-path MX', () => {
    const mx = () => recordOf('return_path_mx');
    const at = (...hosts: Array<[number, string]>): DnsZone => ({ 'bounces.acme.example': { MX: hosts.map(([preference, exchange]) => ({ preference, exchange })) } });

    test('when ours is the only MX, or preferred to a backup, then it is verified', async () => {
      expect(await look(mx(), at([10, 'mx.mailroom.test']))).toEqual({ outcome: 'match', found: ['10 mx.mailroom.test'] });
      expect(await look(mx(), at([20, 'backup.example'], [10, 'MX.Mailroom.Test']))).toEqual({ outcome: 'match', found: ['10 mx.mailroom.test', '20 backup.example'] });
    });

    test('when another host is preferred to ours, or as preferred, then it is a mismatch that names it', async () => {
      expect(await look(mx(), at([10, 'mx.mailroom.test'], [5, 'other.example']))).toMatchObject({
        outcome: 'mismatch',
        found: ['5 other.example', '10 mx.mailroom.test'],
        reason: 'other.example (preference 5) is preferred to mx.mailroom.test (10), so bounces may go there first',
      });
      expect((await look(mx(), at([10, 'mx.mailroom.test'], [10, 'other.example']))).reason).toMatch(/other\.example \(preference 10\) is as preferred as mx\.mailroom\.test/);
    });

    test('when only other hosts are published, then it is a mismatch', async () => {
      expect(await look(mx(), at([10, 'other.example']))).toMatchObject({ outcome: 'mismatch', reason: "bounces.acme.example's MX is other.example, not mx.mailroom.test" });
    });

    test('when there is no MX, then it is missing; when DNS fails, unknown', async () => {
      expect(await look(mx(), {})).toEqual({ outcome: 'missing', found: [] });
      expect((await lookupRecord(failingResolver, recordOf('return_path_mx', 'servfail.example'))).outcome).toBe('unknown');
    });
  });

  describe('DMARC', () => {
    test('when the domain publishes its own policy, then it is verified', async () => {
      expect(await look(recordOf('dmarc'), { '_dmarc.acme.example': { TXT: ['v=DMARC1; p=quarantine'] } })).toEqual({ outcome: 'match', found: ['v=DMARC1; p=quarantine'] });
    });

    test("when a subdomain has no policy of its own, then its organizational domain's applies and it is verified, saying so", async () => {
      const zone: DnsZone = { '_dmarc.orgdmarc.example': { TXT: ['v=DMARC1; p=reject; sp=reject'] }, '_dmarc.acme.co.uk': { TXT: ['v=DMARC1; p=reject'] } };
      const lookup = await look(recordOf('dmarc', 'news.orgdmarc.example'), zone);
      expect(lookup).toEqual({
        outcome: 'match',
        found: ['_dmarc.orgdmarc.example (organizational domain): v=DMARC1; p=reject; sp=reject'],
        reason: expect.stringMatching(/^no DMARC record at _dmarc\.news\.orgdmarc\.example, so the organizational domain orgdmarc\.example's policy applies/),
      });
      // The organizational domain is found with the public suffix list: co.uk is a suffix.
      expect((await look(recordOf('dmarc', 'mail.acme.co.uk'), zone)).found).toEqual(['_dmarc.acme.co.uk (organizational domain): v=DMARC1; p=reject']);
    });

    test('when neither the subdomain nor its organizational domain has a policy, then it is missing', async () => {
      expect(await look(recordOf('dmarc', 'news.orgdmarc.example'), { '_dmarc.news.orgdmarc.example': { TXT: ['hello'] } })).toEqual({ outcome: 'missing', found: ['hello'] });
      expect(await look(recordOf('dmarc'), {})).toEqual({ outcome: 'missing', found: [] });
    });

    test('when two policies are at the name, then it is a mismatch, as receivers apply neither', async () => {
      const lookup = await look(recordOf('dmarc'), { '_dmarc.acme.example': { TXT: ['v=DMARC1; p=none', 'v=DMARC1; p=reject'] } });
      expect(lookup).toMatchObject({ outcome: 'mismatch', reason: expect.stringMatching(/2 DMARC records at _dmarc\.acme\.example/) });
    });

    test("when the organizational domain's lookup fails, then it is unknown", async () => {
      failing.setZone({});
      expect((await lookupRecord(failingResolver, recordOf('dmarc', 'news.orgfail.example'))).outcome).toBe('unknown');
      expect((await lookupRecord(failingResolver, recordOf('dmarc', 'servfail.example'))).outcome).toBe('unknown');
    });
  });

  describe('verification record', () => {
    test('when the token is published, then it is verified; another token is a mismatch', async () => {
      const verification = recordOf('verification');
      expect((await look(verification, { '_mailroom.acme.example': { TXT: ['mailroom-verification=tok123'] } })).outcome).toBe('match');
      expect((await look(verification, { '_mailroom.acme.example': { TXT: ['mailroom-verification=other'] } })).outcome).toBe('mismatch');
      expect((await look(verification, {})).outcome).toBe('missing');
    });
  });
});

describe('nextRecordCheck', () => {
  const now = new Date('2026-05-01T12:00:00.000Z');
  const verified: RecordCheck = { status: 'verified', found: ['v=spf1 ip4:127.0.0.1 -all'], checkedAt: '2026-05-01T06:00:00.000Z' };

  test('when a lookup is a mismatch with a reason, then the check is failed and keeps the reason', () => {
    expect(nextRecordCheck(verified, { outcome: 'mismatch', found: ['v=spf1 +all'], reason: 'too broad' }, now)).toEqual({
      status: 'failed',
      found: ['v=spf1 +all'],
      reason: 'too broad',
      checkedAt: now.toISOString(),
    });
  });

  test('when DNS did not answer, then the previous state stays as it was', () => {
    expect(nextRecordCheck(verified, { outcome: 'unknown', found: [] }, now)).toBe(verified);
    expect(nextRecordCheck(undefined, { outcome: 'unknown', found: [] }, now)).toEqual({ status: 'pending', found: [], checkedAt: now.toISOString() });
  });

  test('when a match carries no reason, then the check has none', () => {
    expect(nextRecordCheck(undefined, { outcome: 'match', found: ['x'] }, now)).toEqual({ status: 'verified', found: ['x'], checkedAt: now.toISOString() });
  });
});
