import { DnsServer, type DnsServerOptions } from '../../../../test/support/dns-server';
import { createResolver } from '@mailroom/core';
import { type MxRoute, resolveMxRoute } from './resolve-mx';

describe('resolveMxRoute', () => {
  let server: DnsServer | null = null;
  afterEach(async () => {
    await server?.stop();
    server = null;
  });

  async function resolve(domain: string, options: DnsServerOptions, allowPrivateNetworks = true, dnsTimeoutMs?: number): Promise<MxRoute> {
    server = await new DnsServer(options).start();
    return resolveMxRoute(domain, { resolver: createResolver([server.address], dnsTimeoutMs), allowPrivateNetworks });
  }

  it('when the domain has MX records, then hosts come by preference with A before AAAA addresses', async () => {
    const route = await resolve('example.test', {
      zone: {
        'example.test': {
          MX: [
            { preference: 30, exchange: 'c.example.test' },
            { preference: 10, exchange: 'A.Example.test' },
          ],
        },
        'a.example.test': { A: ['192.0.2.1'], AAAA: ['2001:db8::1'] },
        'c.example.test': { AAAA: ['2001:db8::3'] },
      },
    });
    expect(route).toEqual({
      kind: 'hosts',
      hosts: [
        { name: 'a.example.test', addresses: ['192.0.2.1', '2001:db8::1'] },
        { name: 'c.example.test', addresses: ['2001:db8::3'] },
      ],
    });
  });

  it('when MX hosts share a preference, then all of them are kept', async () => {
    const route = await resolve('example.test', {
      zone: {
        'example.test': {
          MX: [
            { preference: 10, exchange: 'one.example.test' },
            { preference: 10, exchange: 'two.example.test' },
          ],
        },
        'one.example.test': { A: ['192.0.2.1'] },
        'two.example.test': { A: ['192.0.2.2'] },
      },
    });
    expect(route.kind === 'hosts' && route.hosts.map((host) => host.name).sort()).toEqual(['one.example.test', 'two.example.test']);
  });

  it('when the domain has no MX but an address, then the domain is its own MX', async () => {
    const route = await resolve('example.test', { zone: { 'example.test': { A: ['192.0.2.7'] } } });
    expect(route).toEqual({ kind: 'hosts', hosts: [{ name: 'example.test', addresses: ['192.0.2.7'] }] });
  });

  it('when the domain exists with neither MX nor address, then it bounces hard without suppression', async () => {
    const route = await resolve('example.test', { zone: { 'example.test': { TXT: ['v=spf1 -all'] } } });
    expect(route).toMatchObject({ kind: 'outcome', outcome: { kind: 'bounced', bounceType: 'hard', suppress: false } });
  });

  it('when the domain does not exist, then it bounces hard with 5.1.2 and suppresses', async () => {
    const route = await resolve('nowhere.test', { zone: {} });
    expect(route).toMatchObject({
      kind: 'outcome',
      outcome: { kind: 'bounced', bounceType: 'hard', suppress: true, smtp: { code: null, enhancedCode: '5.1.2' } },
    });
  });

  it('when the only MX is the null MX, then it bounces hard with 5.1.10', async () => {
    const route = await resolve('example.test', { zone: { 'example.test': { MX: [{ preference: 0, exchange: '.' }] } } });
    expect(route).toMatchObject({ kind: 'outcome', outcome: { kind: 'bounced', suppress: true, smtp: { enhancedCode: '5.1.10' } } });
  });

  it('when the MX lookup fails with SERVFAIL, then it is deferred', async () => {
    const route = await resolve('example.test', { zone: { 'example.test': { A: ['192.0.2.1'] } }, servfail: ['example.test'] });
    expect(route).toMatchObject({ kind: 'outcome', outcome: { kind: 'deferred', smtp: null } });
    expect(route.kind === 'outcome' && route.outcome.kind === 'deferred' && route.outcome.error).toMatch(/ESERVFAIL/);
  });

  it('when the DNS server does not answer, then it is deferred after the DNS timeout', async () => {
    const route = await resolve('example.test', { zone: {}, silent: ['example.test'] }, true, 100);
    expect(route.kind === 'outcome' && route.outcome.kind === 'deferred' && route.outcome.error).toMatch(/ETIMEOUT/);
  });

  it('when the only MX host lookup fails temporarily, then it is deferred', async () => {
    const route = await resolve('example.test', {
      zone: { 'example.test': { MX: [{ preference: 10, exchange: 'mx.example.test' }] }, 'mx.example.test': { A: ['192.0.2.1'] } },
      servfail: ['mx.example.test'],
    });
    expect(route).toMatchObject({ kind: 'outcome', outcome: { kind: 'deferred' } });
  });

  it('when the only MX host does not exist, then it is deferred', async () => {
    const route = await resolve('example.test', { zone: { 'example.test': { MX: [{ preference: 10, exchange: 'gone.example.test' }] } } });
    expect(route).toMatchObject({ kind: 'outcome', outcome: { kind: 'deferred' } });
  });

  describe('when private networks are not allowed', () => {
    const zone = {
      'example.test': {
        MX: [
          { preference: 10, exchange: 'inside.example.test' },
          { preference: 20, exchange: 'mixed.example.test' },
        ],
      },
      'inside.example.test': { A: ['10.0.0.5', '127.0.0.1'] },
      'mixed.example.test': { A: ['169.254.1.1', '93.184.216.34'] },
    };

    it('then private and link-local addresses are dropped and public ones kept', async () => {
      const route = await resolve('example.test', { zone }, false);
      expect(route).toEqual({ kind: 'hosts', hosts: [{ name: 'mixed.example.test', addresses: ['93.184.216.34'] }] });
    });

    it('then a domain whose MX hosts are all private bounces by policy without suppression', async () => {
      const route = await resolve('example.test', { zone: { ...zone, 'mixed.example.test': { A: ['192.168.1.1'] } } }, false);
      expect(route).toMatchObject({ kind: 'outcome', outcome: { kind: 'bounced', bounceType: 'policy', suppress: false } });
    });

    it('then an address literal on a private network is refused too', async () => {
      const route = await resolve('[127.0.0.1]', { zone: {} }, false);
      expect(route).toMatchObject({ kind: 'outcome', outcome: { kind: 'bounced', bounceType: 'policy' } });
    });
  });

  it('when the domain is an address literal, then it is the only host and DNS is not asked', async () => {
    const route = await resolve('[192.0.2.9]', { zone: {} });
    expect(route).toEqual({ kind: 'hosts', hosts: [{ name: '192.0.2.9', addresses: ['192.0.2.9'] }] });
    expect(server?.queries).toEqual([]);
  });

  it('when the domain is not a valid name, then it bounces hard', async () => {
    const route = await resolve('xn--a.xn--a-.test', { zone: {} });
    expect(route).toMatchObject({ kind: 'outcome', outcome: { kind: 'bounced', bounceType: 'hard', smtp: { enhancedCode: '5.1.2' } } });
  });
});
