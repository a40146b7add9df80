import { generateKeyPairSync } from 'node:crypto';
import { dkimSign, dkimVerify } from 'mailauth';
import { DnsServer, type DnsServerOptions, type DnsZone, ptrName } from '../../../../test/support/dns-server';
import { type AuthenticationVerdicts, authenticateMessage } from './authenticate';

// DNS a real resolver path meets, through authenticateMessage and our DNS lookup (DNS_SERVERS),
// against a DNS server on UDP and TCP.

const SENDER_IP = '192.0.2.10';
const STRANGER_IP = '198.51.100.7';

function rsaKey(bits: number): { privateKey: string; record: string[] } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: bits });
  const p = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  // As DNS providers store a long TXT value: strings of at most 255 bytes (RFC 1035 §3.3.14).
  return { privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), record: `v=DKIM1; k=rsa; p=${p}`.match(/.{1,255}/g) ?? [] };
}

const big = rsaKey(4096);
const normal = rsaKey(2048);

/** A message from `from`, signed for d=`domain`, s=`selector` (checked first: mailauth rarely rejects its own signature). */
async function signed(from: string, domain: string, selector: string, key: { privateKey: string; record: string[] }): Promise<Buffer> {
  for (let attempt = 0; ; attempt++) {
    const raw = `From: ${from}\r\nTo: inbox@acme.test\r\nSubject: DNS edges\r\nMessage-ID: <${Date.now()}.${attempt}@${domain}>\r\n\r\nHello.\r\n`;
    // mailauth 4.13 reads `signatureData`; its bundled types describe the fields flat.
    const options = { signatureData: [{ signingDomain: domain, selector, privateKey: key.privateKey }] };
    const { signatures } = await dkimSign(raw, options as unknown as Parameters<typeof dkimSign>[1]);
    const message = Buffer.from(signatures + raw);
    const check = await dkimVerify(message, { resolver: async () => [key.record] } as unknown as Parameters<typeof dkimVerify>[1]);
    if (check.results[0]?.status.result === 'pass' || attempt >= 3) return message;
  }
}

const zone: DnsZone = {
  // A 4096-bit key: its record (three strings, ~750 bytes) does not fit a 512-byte UDP answer.
  'big._domainkey.big.test': { TXT: [big.record] },
  'big.test': { TXT: [`v=spf1 ip4:${SENDER_IP} -all`] },
  '_dmarc.big.test': { TXT: ['v=DMARC1; p=reject'] },
  // An SPF record with many includes; the sender is only in the last one.
  'many.test': {
    TXT: [
      `v=spf1 ${Array.from({ length: 8 }, (_, i) => `include:_spf${i}.a-rather-long-provider-name.example-mail-service.test`).join(' ')} -all`.match(/.{1,255}/g) ?? [],
    ],
  },
  ...Object.fromEntries(
    Array.from({ length: 8 }, (_, i) => [`_spf${i}.a-rather-long-provider-name.example-mail-service.test`, { TXT: [`v=spf1 ip4:203.0.113.${i} ${i === 7 ? `ip4:${SENDER_IP} ` : ''}-all`] }]),
  ),
  // Key and DMARC records kept by a provider, reached through aliases.
  's1._domainkey.alias.test': { CNAME: 's1.keys.provider.test' },
  's1.keys.provider.test': { TXT: [normal.record] },
  's2._domainkey.alias.test': { CNAME: 's2.alias.provider.test' },
  's2.alias.provider.test': { CNAME: 's2.keys.provider.test' },
  's2.keys.provider.test': { TXT: [normal.record] },
  'alias.test': { TXT: ['v=spf1 -all'] },
  '_dmarc.alias.test': { CNAME: '_dmarc.provider.test' },
  '_dmarc.provider.test': { TXT: ['v=DMARC1; p=quarantine'] },
  'chain.test': { TXT: ['v=spf1 -all'] },
  '_dmarc.chain.test': { CNAME: '_dmarc.one.provider.test' },
  '_dmarc.one.provider.test': { CNAME: '_dmarc.two.provider.test' },
  '_dmarc.two.provider.test': { TXT: ['v=DMARC1; p=reject'] },
  // SPF ptr (RFC 7208 §5.5): the sender's PTR name is validated by its own address records.
  'ptr.test': { TXT: ['v=spf1 ptr -all'] },
  [ptrName(SENDER_IP)]: { PTR: ['mail.ptr.test'] },
  'mail.ptr.test': { A: [SENDER_IP] },
  // A PTR that claims the domain, whose name does not point back to the address.
  [ptrName(STRANGER_IP)]: { PTR: ['forged.ptr.test'] },
  'forged.ptr.test': { A: ['203.0.113.99'] },
  // SPF whose includes DNS fails to answer (see the rcode options of each test).
  'inc.test': { TXT: ['v=spf1 include:_spf.down.test -all'] },
  'nested.test': { TXT: ['v=spf1 include:_spf.nested.test -all'] },
  '_spf.nested.test': { TXT: ['v=spf1 a:hosts.down.test -all'] },
  'ptrfirst.test': { TXT: [`v=spf1 ptr ip4:${SENDER_IP} -all`] },
  // An internationalized domain (exämple.test), as DNS holds it: in A-labels (RFC 8616).
  'xn--exmple-cua.test': { TXT: [`v=spf1 ip4:${SENDER_IP} -all`] },
  '_dmarc.xn--exmple-cua.test': { TXT: ['v=DMARC1; p=reject'] },
  // Key lookups DNS fails, or that find nothing.
  'broken.test': { TXT: [`v=spf1 ip4:${SENDER_IP} -all`] },
};

describe('mail authentication through DNS edge cases', () => {
  const servers: DnsServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop();
  });

  async function judge(message: Buffer, mailFrom: string, options: DnsServerOptions = {}, remoteAddress = SENDER_IP): Promise<{ verdicts: AuthenticationVerdicts; dns: DnsServer }> {
    const dns = await new DnsServer({ zone, ...options }).start();
    servers.push(dns);
    const verdicts = await authenticateMessage(message, { remoteAddress, helo: 'mail.sender.test', mailFrom, mta: 'mx.acme.test', dnsServers: [dns.address] });
    return { verdicts, dns };
  }

  describe('answers too large for UDP (RFC 1035 §4.2.1, RFC 7766 §5: retried over TCP)', () => {
    test('when the 4096-bit DKIM key comes truncated over UDP, then it is read over TCP and DKIM and DMARC pass', async () => {
      const message = await signed('a@big.test', 'big.test', 'big', big);

      const { verdicts, dns } = await judge(message, 'a@big.test', { truncate: ['big._domainkey.big.test'] });

      expect(verdicts.dkim).toEqual([{ result: 'pass', domain: 'big.test', selector: 'big', aligned: true }]);
      expect(verdicts.dmarc.result).toBe('pass');
      expect(dns.truncated).toContainEqual({ name: 'big._domainkey.big.test', type: 'TXT' });
      expect(dns.tcpQueries).toContainEqual({ name: 'big._domainkey.big.test', type: 'TXT' });
    });

    test('when the server does not answer over TCP, then the truncated key is a temperror, not a permerror', async () => {
      const message = await signed('a@big.test', 'big.test', 'big', big);

      const { verdicts } = await judge(message, 'a@big.test', { truncate: ['big._domainkey.big.test'], tcp: false });

      expect(verdicts.dkim).toEqual([expect.objectContaining({ result: 'temperror', domain: 'big.test' })]);
    });

    test('when an SPF record with many includes comes truncated over UDP, then it is read over TCP and SPF passes', async () => {
      const message = Buffer.from('From: a@many.test\r\nTo: inbox@acme.test\r\nSubject: includes\r\n\r\nHello.\r\n');

      const { verdicts, dns } = await judge(message, 'bounce@many.test', { truncate: ['many.test'] });

      expect(verdicts.spf).toEqual({ result: 'pass', domain: 'many.test' });
      expect(dns.tcpQueries).toContainEqual({ name: 'many.test', type: 'TXT' });
    });
  });

  describe('internationalized domains (SMTPUTF8, RFC 8616)', () => {
    test('when the envelope sender and From have a U-label domain, then SPF looks up its A-label and passes, and DMARC passes aligned on it', async () => {
      const message = Buffer.from('From: Zoë <zoë@exämple.test>\r\nTo: inbox@acme.test\r\nSubject: IDN\r\n\r\nHello.\r\n');

      const { verdicts, dns } = await judge(message, 'zoë@exämple.test');

      expect(verdicts.spf).toEqual({ result: 'pass', domain: 'xn--exmple-cua.test' });
      expect(verdicts.dmarc).toEqual({ result: 'pass', policy: 'reject', domain: 'xn--exmple-cua.test' });
      expect(dns.queries).toContainEqual({ name: 'xn--exmple-cua.test', type: 'TXT' });
    });

    test('when a U-label sender comes from an address its SPF record does not list, then SPF fails on the A-label and DMARC fails', async () => {
      const message = Buffer.from('From: zoë@exämple.test\r\nTo: inbox@acme.test\r\nSubject: IDN\r\n\r\nHello.\r\n');

      const { verdicts } = await judge(message, 'zoë@exämple.test', {}, STRANGER_IP);

      expect(verdicts.spf).toEqual({ result: 'fail', domain: 'xn--exmple-cua.test' });
      expect(verdicts.dmarc.result).toBe('fail');
    });
  });

  describe('records reached through CNAME', () => {
    test('when the DKIM key is an alias of a provider record, then it is followed and DKIM passes', async () => {
      const message = await signed('a@alias.test', 'alias.test', 's1', normal);

      const { verdicts } = await judge(message, 'a@alias.test');

      expect(verdicts.dkim).toEqual([{ result: 'pass', domain: 'alias.test', selector: 's1', aligned: true }]);
    });

    test('when the DKIM key is two aliases away and DMARC is an alias, then both are followed: DKIM passes and DMARC passes under the aliased policy', async () => {
      const message = await signed('a@alias.test', 'alias.test', 's2', normal);

      const { verdicts } = await judge(message, 'a@alias.test');

      expect(verdicts.dkim).toEqual([{ result: 'pass', domain: 'alias.test', selector: 's2', aligned: true }]);
      expect(verdicts.dmarc).toEqual({ result: 'pass', policy: 'quarantine', domain: 'alias.test' });
    });

    test('when the DMARC record is two aliases away, then its policy is found and applied', async () => {
      const message = Buffer.from('From: a@chain.test\r\nTo: inbox@acme.test\r\nSubject: unsigned\r\n\r\nHello.\r\n');

      const { verdicts } = await judge(message, 'a@chain.test');

      expect(verdicts.dmarc).toEqual({ result: 'fail', policy: 'reject', domain: 'chain.test' });
    });
  });

  describe('SPF ptr (RFC 7208 §5.5)', () => {
    const unsigned = Buffer.from('From: a@ptr.test\r\nTo: inbox@acme.test\r\nSubject: ptr\r\n\r\nHello.\r\n');

    test("when the sender's PTR name is under the domain and resolves back to the sender, then ptr matches and SPF passes", async () => {
      const { verdicts } = await judge(unsigned, 'a@ptr.test');
      expect(verdicts.spf).toEqual({ result: 'pass', domain: 'ptr.test' });
    });

    test("when the sender's PTR name is under the domain but does not resolve back to the sender, then ptr does not match and SPF fails", async () => {
      const { verdicts, dns } = await judge(unsigned, 'a@ptr.test', {}, STRANGER_IP);
      expect(verdicts.spf).toEqual({ result: 'fail', domain: 'ptr.test' });
      // Not matching because the forward lookup was made and disagreed, not because none was.
      expect(dns.queries).toContainEqual({ name: 'forged.ptr.test', type: 'A' });
    });
  });

  describe('DNS failing for SPF', () => {
    const from = (domain: string) => Buffer.from(`From: a@${domain}\r\nTo: inbox@acme.test\r\nSubject: spf\r\n\r\nHello.\r\n`);

    test("when an include's record lookup gets SERVFAIL, then SPF is temperror (RFC 7208 §5.2: the include's temperror is the result), not fail", async () => {
      const { verdicts } = await judge(from('inc.test'), 'a@inc.test', { rcode: { '_spf.down.test': 'SERVFAIL' } }, STRANGER_IP);
      expect(verdicts.spf).toEqual({ result: 'temperror', domain: 'inc.test' });
    });

    test("when an include's record comes truncated and the server has no TCP, then SPF is temperror, not fail", async () => {
      const { verdicts } = await judge(from('inc.test'), 'a@inc.test', { zone: { ...zone, '_spf.down.test': { TXT: ['v=spf1 -all'] } }, truncate: ['_spf.down.test'], tcp: false }, STRANGER_IP);
      expect(verdicts.spf).toEqual({ result: 'temperror', domain: 'inc.test' });
    });

    test('when an a: lookup inside an include gets SERVFAIL, then SPF is temperror, not fail', async () => {
      const { verdicts } = await judge(from('nested.test'), 'a@nested.test', { rcode: { 'hosts.down.test': 'SERVFAIL' } }, STRANGER_IP);
      expect(verdicts.spf).toEqual({ result: 'temperror', domain: 'nested.test' });
    });

    test('when the PTR lookup for ptr gets SERVFAIL, then ptr does not match and the next mechanism decides (RFC 7208 §5.5), not temperror', async () => {
      const { verdicts } = await judge(from('ptrfirst.test'), 'a@ptrfirst.test', { rcode: { [ptrName(SENDER_IP)]: 'SERVFAIL' } });
      expect(verdicts.spf).toEqual({ result: 'pass', domain: 'ptrfirst.test' });
    });

    test('when the PTR lookup gets SERVFAIL and ptr is the only way in, then SPF fails', async () => {
      const { verdicts } = await judge(from('ptr.test'), 'a@ptr.test', { rcode: { [ptrName(SENDER_IP)]: 'SERVFAIL' } });
      expect(verdicts.spf).toEqual({ result: 'fail', domain: 'ptr.test' });
    });
  });

  describe('DNS failing for the DKIM key', () => {
    test('when the key lookup gets SERVFAIL, then that signature is temperror (RFC 6376 §6.1.2: TEMPFAIL)', async () => {
      const message = await signed('a@broken.test', 'broken.test', 'k', normal);
      const { verdicts } = await judge(message, 'a@broken.test', { rcode: { 'k._domainkey.broken.test': 'SERVFAIL' } });
      expect(verdicts.dkim).toEqual([expect.objectContaining({ result: 'temperror', domain: 'broken.test' })]);
    });

    test('when the key lookup gets REFUSED, then that signature is temperror', async () => {
      const message = await signed('a@broken.test', 'broken.test', 'k', normal);
      const { verdicts } = await judge(message, 'a@broken.test', { rcode: { 'k._domainkey.broken.test': 'REFUSED' } });
      expect(verdicts.dkim).toEqual([expect.objectContaining({ result: 'temperror', domain: 'broken.test' })]);
    });

    test('when the key name does not exist (NXDOMAIN), then that signature is permerror (RFC 6376 §6.1.2 step 3: PERMFAIL, key unavailable)', async () => {
      const message = await signed('a@broken.test', 'broken.test', 'k', normal);
      const { verdicts } = await judge(message, 'a@broken.test');
      expect(verdicts.dkim).toEqual([expect.objectContaining({ result: 'permerror', domain: 'broken.test' })]);
    });

    test('when the key is an alias whose target gets SERVFAIL, then that signature is temperror', async () => {
      const message = await signed('a@alias.test', 'alias.test', 's1', normal);
      const { verdicts } = await judge(message, 'a@alias.test', { rcode: { 's1.keys.provider.test': 'SERVFAIL' } });
      expect(verdicts.dkim).toEqual([expect.objectContaining({ result: 'temperror', domain: 'alias.test' })]);
    });
  });
});
