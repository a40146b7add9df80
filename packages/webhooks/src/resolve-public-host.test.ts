import { createResolver } from '@mailroom/core';
import { DnsServer } from '../../../test/support/dns-server';
import { resolvePublicHost } from './resolve-public-host';

describe('resolvePublicHost', () => {
  const dns = new DnsServer({
    zone: {
      'public.example.test': { A: ['93.184.216.34'], AAAA: ['2606:2800:220:1:248:1893:25c8:1946'] },
      'mixed.example.test': { A: ['93.184.216.34', '10.0.0.7'] },
      'six.example.test': { AAAA: ['::1'] },
      'mapped.example.test': { AAAA: ['::ffff:127.0.0.1'] },
      'metadata.example.test': { A: ['169.254.169.254'] },
      // Outside 2000::/3, the only IPv6 space IANA allocates as global unicast.
      'unallocated.example.test': { AAAA: ['4000::1'] },
    },
  });
  let resolver: ReturnType<typeof createResolver>;

  beforeAll(async () => {
    await dns.start();
    resolver = createResolver([dns.address], 1_000);
  });
  afterAll(() => dns.stop());

  const check = (host: string, allowPrivateNetworks = false) => resolvePublicHost(host, { resolver, allowPrivateNetworks });

  test('when every address is public, then all of them are returned, A and AAAA', async () => {
    expect(await check('public.example.test')).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ]);
  });

  test.each([
    ['mixed.example.test', '10.0.0.7'],
    ['six.example.test', '::1'],
    ['mapped.example.test', '::ffff:127.0.0.1'],
    ['metadata.example.test', '169.254.169.254'],
    ['localhost', '127.0.0.1'],
    ['api.localhost', '127.0.0.1'],
    ['127.0.0.1', '127.0.0.1'],
    ['[::1]', '::1'],
    // IPv4-compatible (deprecated, RFC 4291 §2.5.5.1) form of 127.0.0.1, as WHATWG URL writes it.
    ['[::7f00:1]', '::7f00:1'],
    ['[4000::1]', '4000::1'],
    ['unallocated.example.test', '4000::1'],
    // Special-purpose blocks of IANA's registry (RFC 6890 and after): NAT64 and 6to4 of loopback, CGNAT, benchmarking.
    ['[64:ff9b::7f00:1]', '64:ff9b::7f00:1'],
    ['[2002:7f00:1::]', '2002:7f00:1::'],
    ['100.64.0.1', '100.64.0.1'],
    ['198.18.0.1', '198.18.0.1'],
  ])('when %s resolves to a private address, then it is refused for %s', async (host, address) => {
    await expect(check(host)).rejects.toMatchObject({ name: 'UnsafeWebhookHostError', reason: 'private_address', address });
  });

  test('when a name resolves to a private address or to none, then the message is the same and names no address (no map of the internal DNS)', async () => {
    const privateName = await check('mixed.example.test').catch((err: Error) => err);
    const missing = await check('nowhere.example.test').catch((err: Error) => err);
    expect(privateName).toMatchObject({ reason: 'private_address', message: expect.stringContaining('mixed.example.test does not resolve to a public address') });
    expect(missing).toMatchObject({ reason: 'unresolvable' });
    expect((missing as Error).message).toBe((privateName as Error).message.replace('mixed.example.test', 'nowhere.example.test'));
    expect((privateName as Error).message).not.toMatch(/\d+\.\d+\.\d+\.\d+|::/);
  });

  test('when an IP literal is public, IPv4-mapped IPv6 included, then it is returned as itself', async () => {
    expect(await check('[2606:4700::1111]')).toEqual([{ address: '2606:4700::1111', family: 6 }]);
    expect(await check('[::ffff:5db8:d822]')).toEqual([{ address: '::ffff:5db8:d822', family: 6 }]);
  });

  test('when ALLOW_PRIVATE_NETWORKS is on, then private addresses are returned', async () => {
    expect(await check('mixed.example.test', true)).toHaveLength(2);
    expect(await check('localhost', true)).toEqual([
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
  });

  test('when the name does not exist, then it is refused as unresolvable', async () => {
    await expect(check('nowhere.example.test')).rejects.toMatchObject({ reason: 'unresolvable' });
  });
});
