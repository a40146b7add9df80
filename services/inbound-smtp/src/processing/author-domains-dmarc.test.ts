import { DnsServer } from '../../../../test/support/dns-server';
import { authenticateMessage } from './authenticate';

const SENDER_IP = '192.0.2.10';

describe('DMARC for a From with several addresses, through authenticateMessage', () => {
  let dns: DnsServer;
  beforeAll(async () => {
    dns = await new DnsServer({
      zone: {
        'bank.test': { TXT: [`v=spf1 ip4:${SENDER_IP} -all`] },
        '_dmarc.bank.test': { TXT: ['v=DMARC1; p=reject'] },
        'lax.test': { TXT: ['v=spf1 -all'] },
        '_dmarc.lax.test': { TXT: ['v=DMARC1; p=none'] },
      },
    }).start();
  });
  afterAll(() => dns.stop());

  const judge = (from: string, mailFrom: string, remoteAddress = SENDER_IP) =>
    authenticateMessage(Buffer.from(`From: ${from}\r\nTo: inbox@acme.test\r\nSubject: several authors\r\n\r\nHello.\r\n`), {
      remoteAddress,
      helo: 'mx.bank.test',
      mailFrom,
      mta: 'mx.acme.test',
      dnsServers: [dns.address],
    });

  test('when one author domain fails with p=reject, then DMARC fails with that domain and policy (not none)', async () => {
    const verdicts = await judge('ceo@bank.test, mallory@lax.test', 'bounce@lax.test', '198.51.100.7');
    expect(verdicts.dmarc).toEqual({ result: 'fail', policy: 'reject', domain: 'bank.test' });
  });

  test('when one domain passes and another fails, then DMARC fails for the failing one, under its own policy', async () => {
    const verdicts = await judge('ceo@bank.test, bob@lax.test', 'bounce@bank.test');
    expect(verdicts.spf.result).toBe('pass');
    expect(verdicts.dmarc).toEqual({ result: 'fail', policy: 'none', domain: 'lax.test' });
  });

  test('when two addresses share a domain that passes, then DMARC passes for it', async () => {
    const verdicts = await judge('ceo@bank.test, desk@bank.test', 'bounce@bank.test');
    expect(verdicts.dmarc).toEqual({ result: 'pass', policy: 'reject', domain: 'bank.test' });
  });
});
