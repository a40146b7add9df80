import { DnsServer } from '../../../../test/support/dns-server';
import { authenticateMessage } from './authenticate';
import { alignedDmarcResult, dkimAligned, dmarcFromDomain, type MailauthDmarc } from './dmarc-alignment';

// What mailauth 4.13 answers for a record with adkim=s; aspf=s: its alignment fell back to relaxed.
const strictRecord = (result: string): MailauthDmarc => ({
  status: { result, header: { from: 'example.test', d: 'example.test' } },
  policy: 'reject',
  alignment: { spf: { result: 'mail.example.test', strict: true }, dkim: { result: 'mail.example.test', strict: true } },
});

describe('alignedDmarcResult', () => {
  test('when alignment is strict and the identifiers are only subdomains of the From domain, then DMARC fails', () => {
    expect(alignedDmarcResult(strictRecord('pass'), 'example.test', { spfDomain: 'mail.example.test', dkim: [{ domain: 'mail.example.test', relaxedAligned: true }] })).toBe('fail');
  });

  test('when alignment is strict and a passing d= or the SPF domain is the From domain (in any case), then DMARC passes', () => {
    expect(alignedDmarcResult(strictRecord('pass'), 'example.test', { spfDomain: null, dkim: [{ domain: 'Example.TEST', relaxedAligned: true }] })).toBe('pass');
    expect(alignedDmarcResult(strictRecord('fail'), 'example.test', { spfDomain: 'example.test', dkim: [] })).toBe('pass');
  });

  test('when alignment is relaxed, then a passing signature that shares the organizational domain aligns, and a withdrawn one does not', () => {
    const relaxed: MailauthDmarc = { status: { result: 'pass' }, alignment: { spf: { result: false, strict: false }, dkim: { result: 'example.test', strict: false } } };
    expect(alignedDmarcResult(relaxed, 'mail.example.test', { spfDomain: null, dkim: [{ domain: 'example.test', relaxedAligned: true }] })).toBe('pass');
    expect(alignedDmarcResult(relaxed, 'mail.example.test', { spfDomain: null, dkim: [] })).toBe('fail');
  });

  test('when no record was read (none, temperror), then the result is left alone', () => {
    expect(alignedDmarcResult({ status: { result: 'temperror' } }, 'example.test', { spfDomain: null, dkim: [] })).toBe('temperror');
  });
});

describe('dkimAligned', () => {
  test('when the record asks for strict DKIM alignment, then a signature aligns only with the From domain itself', () => {
    expect(dkimAligned(strictRecord('pass'), 'example.test', 'mail.example.test', true)).toBe(false);
    expect(dkimAligned(strictRecord('pass'), 'example.test', 'EXAMPLE.test', true)).toBe(true);
  });

  test('when alignment is relaxed or no record was read, then the relaxed answer stands', () => {
    expect(dkimAligned({ status: { result: 'pass' }, alignment: { dkim: { result: 'example.test', strict: false } } }, 'mail.example.test', 'example.test', true)).toBe(true);
    expect(dkimAligned(null, 'mail.example.test', 'other.test', false)).toBe(false);
  });
});

describe('dmarcFromDomain', () => {
  test('when a record was found, then the From domain is the one mailauth read it for, not the organizational domain', () => {
    expect(dmarcFromDomain({ status: { result: 'pass', header: { from: 'example.test', d: 'mail.example.test' } } }, ['a@mail.example.test'])).toBe('mail.example.test');
  });

  test('when no record was found, then it is the domain of the single From address', () => {
    expect(dmarcFromDomain({ status: { result: 'none', header: { from: 'example.test' } } }, ['a@Mail.Example.test'])).toBe('mail.example.test');
    expect(dmarcFromDomain(null, ['a@x.test', 'b@y.test'])).toBeNull();
  });
});

describe('DMARC through authenticateMessage', () => {
  let dns: DnsServer;
  beforeAll(async () => {
    dns = await new DnsServer({
      zone: {
        'mail.strict.test': { TXT: ['v=spf1 ip4:192.0.2.10 -all'] },
        '_dmarc.strict.test': { TXT: ['v=DMARC1; p=reject; aspf=s'] },
      },
    }).start();
  });
  afterAll(() => dns.stop());

  test('when aspf=s and SPF passed for a subdomain of the From domain, then DMARC fails for the From domain', async () => {
    const raw = Buffer.from('From: ada@strict.test\r\nTo: inbox@acme.test\r\nSubject: strict\r\n\r\nHello.\r\n');
    const verdicts = await authenticateMessage(raw, { remoteAddress: '192.0.2.10', helo: 'mx.strict.test', mailFrom: 'bounce@mail.strict.test', mta: 'mx.acme.test', dnsServers: [dns.address] });
    expect(verdicts.spf).toEqual({ result: 'pass', domain: 'mail.strict.test' });
    expect(verdicts.dmarc).toEqual({ result: 'fail', policy: 'reject', domain: 'strict.test' });
  });
});
