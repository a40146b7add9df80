import { DnsServer } from '../../../test/support/dns-server';
import { createKey, signUp, startTestGateway, type TestGateway } from '../../../test/support/gateway';
import type { ApiClient } from '../../../test/support/http';

const PUBLIC_IP = '93.184.215.14';

describe('webhook URLs as outside checkers write them', () => {
  let dns: DnsServer;
  let gateway: TestGateway;
  let api: ApiClient;
  beforeAll(async () => {
    dns = await new DnsServer({ zone: { 'xn--bcher-kva.acme.test': { A: [PUBLIC_IP] }, 'public.acme.test': { A: [PUBLIC_IP] } } }).start();
    gateway = await startTestGateway({ label: 'webhooks_probe', env: { ALLOW_SIGNUP: 'true', DNS_SERVERS: dns.address, ALLOW_PRIVATE_NETWORKS: 'false' } });
    api = gateway.api.as({ token: (await createKey((await signUp(gateway.api)).as)).token });
  });
  afterAll(async () => {
    await gateway.close();
    await dns.stop();
  });

  const create = (url: string) => api.post('/webhooks', { url, events: ['email.sent'] });

  test('when a URL is under 2 KB as typed but over it once percent-encoded, then creation and PATCH are 422 naming the length; at exactly 2 KB normalized it is taken', async () => {
    const base = `https://${PUBLIC_IP}/`;
    // 1,000 "é" are 1,000 characters as typed and 6,000 as stored and requested (%C3%A9 each).
    const encoded = await create(`${base}${'é'.repeat(1_000)}`);
    expect({ status: encoded.status, name: encoded.body.name }).toEqual({ status: 422, name: 'validation_error' });
    expect(encoded.body.message).toMatch(/^`url`: must be at most 2048 characters once normalized.*6022/);
    const atLimit = await create(`${base}${'a'.repeat(2048 - base.length)}`);
    expect({ status: atLimit.status, length: atLimit.body.url?.length }).toEqual({ status: 201, length: 2048 });
    const patched = await api.patch(`/webhooks/${atLimit.body.id}`, { url: `${base}${'ü'.repeat(800)}` });
    expect({ status: patched.status, name: patched.body.name }).toEqual({ status: 422, name: 'validation_error' });
    expect((await api.get(`/webhooks/${atLimit.body.id}`)).body.url).toBe(atLimit.body.url);
  });

  test('when the host is an IDN, then it is checked and stored in punycode; a trailing dot is a name like any other', async () => {
    const idn = await create('https://Bücher.acme.test/hooks?x=1#part');
    expect({ status: idn.status, url: idn.body.url }).toEqual({ status: 201, url: 'https://xn--bcher-kva.acme.test/hooks?x=1#part' });
    expect(dns.queries.some((q) => q.name.toLowerCase() === 'xn--bcher-kva.acme.test')).toBe(true);
    const dotted = await create('https://public.acme.test./hook');
    expect({ status: dotted.status, url: dotted.body.url }).toEqual({ status: 201, url: 'https://public.acme.test./hook' });
  });

  test('when loopback is spelled in hex, octal, short, decimal or with a trailing dot, then creation is 422 naming 127.0.0.1', async () => {
    for (const url of ['http://0x7f.1/', 'http://127.1/', 'http://0177.0.0.1/', 'http://2130706433/', 'http://127.0.0.1./', 'http://0x7f000001/']) {
      const res = await create(url);
      expect({ url, status: res.status, message: res.body.message }).toEqual({ url, status: 422, message: expect.stringMatching(/127\.0\.0\.1.*ALLOW_PRIVATE_NETWORKS/) });
    }
    for (const url of ['http://0/', 'http://[::]/', 'http://[::ffff:7f00:1]/', 'http://[64:ff9b::7f00:1]/', 'http://localhost./', 'http://foo.localhost/']) {
      const res = await create(url);
      expect({ url, status: res.status, name: res.body.name }).toEqual({ url, status: 422, name: 'validation_error' });
    }
  });
});
