import { DnsServer } from '../../../test/support/dns-server';
import { createKey, signUp, startTestGateway, type TestGateway } from '../../../test/support/gateway';
import type { ApiClient } from '../../../test/support/http';

const PUBLIC_IP = '93.184.215.14';

describe('webhook URLs on private networks (creation-time SSRF rule)', () => {
  let dns: DnsServer;
  let strict: TestGateway;
  let open: TestGateway;
  let api: ApiClient;
  let openApi: ApiClient;
  beforeAll(async () => {
    dns = await new DnsServer({
      zone: {
        'public.acme.test': { A: [PUBLIC_IP] },
        // Resolves to loopback only: refused although the name itself looks public.
        'loopback.acme.test': { A: ['127.0.0.1'] },
        // One public and one private address: refused, since any one could be connected to.
        'mixed.acme.test': { A: [PUBLIC_IP, '10.1.2.3'] },
        'v6.acme.test': { AAAA: ['fd00::1'] },
        'nothing.acme.test': {},
      },
      servfail: ['broken.acme.test'],
    }).start();
    strict = await startTestGateway({ label: 'webhooks_ssrf', env: { ALLOW_SIGNUP: 'true', DNS_SERVERS: dns.address, ALLOW_PRIVATE_NETWORKS: 'false' } });
    // A second gateway on the same database, as a development installation would run it.
    open = await startTestGateway({ database: strict.database, env: { ALLOW_SIGNUP: 'true', DNS_SERVERS: dns.address, ALLOW_PRIVATE_NETWORKS: 'true' } });
    const token = (await createKey((await signUp(strict.api)).as)).token;
    api = strict.api.as({ token });
    openApi = open.api.as({ token });
  });
  afterAll(async () => {
    await open.close();
    await strict.close();
    await dns.stop();
  });

  const refused = async (url: string, words: RegExp) => {
    const res = await api.post('/webhooks', { url, events: ['email.sent'] });
    expect({ url, status: res.status, name: res.body.name, message: res.body.message }).toEqual({
      url,
      status: 422,
      name: 'validation_error',
      message: expect.stringMatching(words),
    });
  };

  test('when the host is a loopback, private or link-local literal, then creation is 422 while ALLOW_PRIVATE_NETWORKS is off', async () => {
    await refused('http://127.0.0.1:8080/hook', /^`url`: .*127\.0\.0\.1.*private, loopback or link-local.*ALLOW_PRIVATE_NETWORKS/);
    await refused('http://[::1]/hook', /::1/);
    await refused('http://10.0.0.7/hook', /10\.0\.0\.7/);
    await refused('http://169.254.169.254/latest/meta-data', /169\.254\.169\.254/);
    await refused('http://[::ffff:127.0.0.1]/hook', /private/);
    await refused('http://localhost:3000/hook', /localhost/);
    await refused('http://2130706433/hook', /127\.0\.0\.1/);
    // IPv4-compatible IPv6 (::/96, deprecated) and unallocated IPv6 (outside 2000::/3): not public unicast either.
    await refused('http://[::127.0.0.1]/hook', /::7f00:1/);
    await refused('http://[4000::1]/hook', /4000::1/);
  });

  test('when a name resolves to a private address through DNS_SERVERS, then creation and PATCH are 422', async () => {
    await refused('https://loopback.acme.test/hook', /loopback\.acme\.test does not resolve to a public address/);
    await refused('https://mixed.acme.test/hook', /mixed\.acme\.test does not resolve to a public address/);
    await refused('https://v6.acme.test/hook', /v6\.acme\.test does not resolve to a public address/);
    const { id } = (await api.post('/webhooks', { url: 'https://public.acme.test/hook', events: ['email.sent'] })).body;
    const res = await api.patch(`/webhooks/${id}`, { url: 'https://loopback.acme.test/hook' });
    expect(res.status).toBe(422);
    expect((await api.get(`/webhooks/${id}`)).body.url).toBe('https://public.acme.test/hook');
  });

  test('when a name does not resolve, or DNS fails, then creation is 422 saying so', async () => {
    await refused('https://missing.acme.test/hook', /does not resolve to a public address/);
    await refused('https://nothing.acme.test/hook', /does not resolve to a public address/);
    await refused('https://broken.acme.test/hook', /could not be looked up now .*try again/);
  });

  test('when ALLOW_PRIVATE_NETWORKS is on, then the same private URLs are accepted', async () => {
    for (const url of ['https://loopback.acme.test/hook', 'http://127.0.0.1:8080/hook', 'http://localhost:3000/hook']) {
      const res = await openApi.post('/webhooks', { url, events: ['email.sent'] });
      expect({ url, status: res.status }).toEqual({ url, status: 201 });
    }
    // A name that resolves nowhere is still refused: nothing could ever be delivered to it.
    expect((await openApi.post('/webhooks', { url: 'https://missing.acme.test/hook', events: ['email.sent'] })).status).toBe(422);
  });
});
