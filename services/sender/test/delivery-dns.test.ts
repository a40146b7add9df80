import type { Logger } from '@mailroom/core';
import { DnsServer, type DnsServerOptions, type DnsZone } from '../../../test/support/dns-server';
import { SmtpSink } from '../../../test/support/smtp-sink';
import { Deliverer } from '../src/delivery';

// Direct delivery behind DNS a real resolver path meets: answers too large for UDP, aliases,
// error rcodes, equal preferences. Real DNS traffic (UDP and TCP) to a test server, a real SMTP sink.

const quiet = (): Logger => {
  const logger = { child: () => logger, trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} };
  return logger as unknown as Logger;
};

const raw = (subject: string) =>
  Buffer.from(`From: sender@mailroom.test\r\nTo: x@example.test\r\nSubject: ${subject}\r\nMessage-ID: <${subject.replace(/\W/g, '')}@mailroom.test>\r\n\r\nHello.\r\n`);

// Twelve MX hosts with long names: the answer (~900 bytes) does not fit 512-byte UDP. Only the
// fifth leads to the sink (the deliverer tries at most five addresses): a truncated UDP answer
// holds no records, so a delivery shows the list was read whole over TCP.
const MANY_MX: DnsZone = {
  'example.test': {
    MX: Array.from({ length: 12 }, (_, i) => ({ preference: i + 1, exchange: `mx${i}.a-long-mail-exchanger-name.example-hosting-provider.test` })),
  },
  ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`mx${i}.a-long-mail-exchanger-name.example-hosting-provider.test`, { A: [i === 4 ? '127.0.0.1' : '127.0.0.2'] }])),
};

describe('Deliverer against DNS edge cases', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setup(zone: DnsZone, options: Omit<DnsServerOptions, 'zone'> = {}) {
    const smtp = await new SmtpSink({ starttls: false }).start();
    cleanups.push(() => smtp.stop());
    const dns = await new DnsServer({ zone, ...options }).start();
    cleanups.push(() => dns.stop());
    const direct = new Deliverer({ allowPrivateNetworks: true, heloName: 'sender.mailroom.test', logger: quiet(), connectionTimeoutMs: 5_000, mxPort: smtp.port, dnsServers: [dns.address] });
    cleanups.push(() => direct.close());
    return { smtp, dns, direct };
  }

  it('when the MX answer is too large for UDP and comes truncated, then it is read over TCP (RFC 7766 §5) and the message is delivered', async () => {
    const { smtp, dns, direct } = await setup(MANY_MX);

    const outcome = await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: raw('truncated mx') });

    expect(outcome).toMatchObject({ kind: 'delivered', host: 'mx4.a-long-mail-exchanger-name.example-hosting-provider.test' });
    expect(smtp.messages).toHaveLength(1);
    expect(dns.truncated).toContainEqual({ name: 'example.test', type: 'MX' });
    expect(dns.tcpQueries).toContainEqual({ name: 'example.test', type: 'MX' });
  });

  it('when the MX answer comes truncated and the server has no TCP, then it is deferred, not bounced', async () => {
    const { smtp, direct } = await setup(MANY_MX, { tcp: false });

    const outcome = await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: raw('no tcp') });

    expect(outcome).toMatchObject({ kind: 'deferred', smtp: null });
    expect(smtp.connections).toBe(0);
  });

  it('when the MX host is an alias (RFC 5321 §5.1 forbids it, resolvers follow it), then its target address is used and the MX name stays the host', async () => {
    const { smtp, direct } = await setup({
      'example.test': { MX: [{ preference: 10, exchange: 'mail.example.test' }] },
      'mail.example.test': { CNAME: 'mx.hosting.test' },
      'mx.hosting.test': { CNAME: 'mx1.hosting.test' },
      'mx1.hosting.test': { A: ['127.0.0.1'] },
    });

    const outcome = await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: raw('cname mx') });

    expect(outcome).toMatchObject({ kind: 'delivered', host: 'mail.example.test' });
    expect(smtp.messages).toHaveLength(1);
  });

  it('when the domain itself is an alias of one with MX records, then those MX records are used', async () => {
    const { smtp, direct } = await setup({
      'example.test': { CNAME: 'example.hosting.test' },
      'example.hosting.test': { MX: [{ preference: 10, exchange: 'mx.hosting.test' }] },
      'mx.hosting.test': { A: ['127.0.0.1'] },
    });

    const outcome = await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: raw('cname domain') });

    expect(outcome).toMatchObject({ kind: 'delivered', host: 'mx.hosting.test' });
    expect(smtp.messages).toHaveLength(1);
  });

  it.each(['SERVFAIL', 'REFUSED'] as const)('when the MX lookup gets %s, then it is deferred without a connection', async (rcode) => {
    const { smtp, direct } = await setup({ 'example.test': { MX: [{ preference: 10, exchange: 'mx.example.test' }] }, 'mx.example.test': { A: ['127.0.0.1'] } }, { rcode: { 'example.test': rcode } });

    const outcome = await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: raw(rcode) });

    expect(outcome).toMatchObject({ kind: 'deferred', smtp: null });
    expect(smtp.connections).toBe(0);
  });

  it("when the MX host's address lookup gets SERVFAIL, then it is deferred (the address may yet resolve), not bounced", async () => {
    const { smtp, direct } = await setup(
      { 'example.test': { MX: [{ preference: 10, exchange: 'mx.example.test' }] }, 'mx.example.test': { A: ['127.0.0.1'] } },
      { rcode: { 'mx.example.test': 'SERVFAIL' } },
    );

    const outcome = await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: raw('host servfail') });

    expect(outcome).toMatchObject({ kind: 'deferred', smtp: null });
    expect(smtp.connections).toBe(0);
  });

  it('when the domain is an alias whose target does not exist (NXDOMAIN), then it bounces hard with 5.1.2', async () => {
    const { smtp, direct } = await setup({ 'example.test': { CNAME: 'gone.hosting.test' } });

    const outcome = await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: raw('dangling') });

    expect(outcome).toMatchObject({ kind: 'bounced', bounceType: 'hard', smtp: { enhancedCode: '5.1.2' } });
    expect(smtp.connections).toBe(0);
  });

  it('when MX hosts share the lowest preference and one is down, then every delivery reaches the other, whichever is tried first', async () => {
    const { smtp, direct } = await setup({
      'example.test': {
        MX: [
          { preference: 10, exchange: 'dead.example.test' },
          { preference: 10, exchange: 'live.example.test' },
          { preference: 20, exchange: 'backup.example.test' },
        ],
      },
      'dead.example.test': { A: ['127.0.0.2'] }, // loopback, but nothing listens there
      'live.example.test': { A: ['127.0.0.1'] },
      'backup.example.test': { A: ['127.0.0.2'] },
    });

    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push(await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: raw(`equal ${i}`) }));

    expect(outcomes.map((o) => [o.kind, 'host' in o ? o.host : null])).toEqual(Array(4).fill(['delivered', 'live.example.test']));
    expect(smtp.messages).toHaveLength(4);
  });
});
