import type { Resolver } from 'node:dns/promises';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { createResolver } from '@mailroom/core';
import { DnsServer } from '../../../test/support/dns-server';
import { WebhookClient } from './webhook-client';

// An address isPrivateAddress calls public; nothing in these tests expects it to answer.
const PUBLIC_IP = '93.184.215.14';
const TIMEOUT_SECONDS = 1;
const RECEIVER_STATUS = 222;

/** A receiver on every local address (dual stack, so ::1, 127.0.0.1, 0.0.0.0 and [::] all reach it); counts what reaches it. */
async function startReceiver(): Promise<{ server: Server; port: number; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.headers.host} ${req.url}`);
    req.resume();
    res.writeHead(RECEIVER_STATUS).end();
  });
  server.listen(0, '::');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port, hits };
}

const post = (client: WebhookClient, url: string) => client.post(url, '{"id":"evt_probe"}', { 'content-type': 'application/json' });

describe('SSRF probes at delivery, ALLOW_PRIVATE_NETWORKS off', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let dns: DnsServer;
  beforeAll(async () => {
    receiver = await startReceiver();
    dns = await new DnsServer({
      zone: {
        'mixed.acme.test': { A: [PUBLIC_IP, '127.0.0.1'] },
        'metadata.google.internal': { A: ['169.254.169.254'] },
        'mapped.acme.test': { AAAA: ['::ffff:7f00:1'] },
      },
    }).start();
  });
  afterAll(async () => {
    receiver.server.close();
    await dns.stop();
  });

  const at = (template: string) => template.replace('PORT', String(receiver.port));

  // Every spelling WHATWG URL reads as a loopback, private, link-local or otherwise non-public
  // host, typed as an attacker would (the dispatcher may be handed URLs stored long ago).
  test.each([
    'http://2130706433:PORT/',
    'http://0x7f.1:PORT/',
    'http://0x7f000001:PORT/',
    'http://0177.0.0.1:PORT/',
    'http://127.000.000.001:PORT/',
    'http://127.1:PORT/',
    'http://0.0.0.0:PORT/',
    'http://0:PORT/',
    'http://[::]:PORT/',
    'http://[::1]:PORT/',
    'http://[::ffff:127.0.0.1]:PORT/',
    'http://[::ffff:7f00:1]:PORT/',
    'http://[0:0:0:0:0:ffff:127.0.0.1]:PORT/',
    'http://[::127.0.0.1]:PORT/',
    'http://[64:ff9b::127.0.0.1]:PORT/',
    'http://[64:ff9b:1::a00:1]:PORT/',
    'http://[2002:7f00:1::]:PORT/',
    'http://[2002:a00:1::1]:PORT/',
    'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]:PORT/',
    'http://[fec0::1]:PORT/',
    'http://[fc00::1]:PORT/',
    'http://[fd12:3456::1]:PORT/',
    'http://[fe80::1]:PORT/',
    'http://100.64.0.1:PORT/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::ffff:a9fe:a9fe]/latest/meta-data/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://localhost:PORT/',
    'http://localhost.:PORT/',
    'http://LOCALHOST:PORT/',
    'http://api.localhost:PORT/',
    // Fullwidth letters and a circled "a": IDNA maps both to plain "localhost".
    'http://ｌｏｃａｌｈｏｓｔ:PORT/',
    'http://locⓐlhost:PORT/',
    'http://evil.example@127.0.0.1:PORT/',
    'http://127.0.0.1:PORT#@evil.example/',
    'http://127.0.0.1:PORT\\@evil.example/',
    'http:\\\\127.0.0.1:PORT\\hook',
    'http://127.0.0.1:PORT\t/hook',
    'http://12\n7.0.0.1:PORT/hook',
    'http://mixed.acme.test:PORT/',
    'http://mapped.acme.test:PORT/',
  ])('when the URL is %s, then the POST is refused as private and nothing is connected to', async (template) => {
    const client = new WebhookClient({ timeoutSeconds: TIMEOUT_SECONDS, resolver: createResolver([dns.address], 1_000), allowPrivateNetworks: false });
    const result = await post(client, at(template));
    await client.close();
    expect(result).toMatchObject({ status: null, error: expect.stringMatching(/a private, loopback or link-local address( is refused while | \()ALLOW_PRIVATE_NETWORKS is off/) });
    expect(receiver.hits).toEqual([]);
  });

  test.each(['http://[fe80::1%25eth0]:PORT/', 'http://[fe80::1%eth0]:PORT/', 'http://127.0.0.1:65536/', 'http://[::1:PORT/'])(
    'when the URL is %s, which no URL parser takes, then the POST is refused as invalid and nothing is connected to',
    async (template) => {
      const client = new WebhookClient({ timeoutSeconds: TIMEOUT_SECONDS, resolver: createResolver([dns.address], 1_000), allowPrivateNetworks: false });
      const result = await post(client, at(template));
      await client.close();
      expect(result).toMatchObject({ status: null, error: 'Invalid URL.' });
      expect(receiver.hits).toEqual([]);
    },
  );
});

describe('SSRF probes at delivery: the address connected to is the one checked', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let dns: DnsServer;
  beforeAll(async () => {
    receiver = await startReceiver();
    dns = await new DnsServer().start();
  });
  afterAll(async () => {
    receiver.server.close();
    await dns.stop();
  });

  test('when DNS answers a public address to the check and loopback right after (rebinding), then the POST never reaches loopback', async () => {
    dns.setZone({ 'rebind.acme.test': { A: [PUBLIC_IP] } });
    const real = createResolver([dns.address], 1_000);
    // Every later question gets loopback, as a rebinding server with TTL 0 answers.
    const rebinding = {
      resolve4: async (host: string) => {
        try {
          return await real.resolve4(host);
        } finally {
          dns.setZone({ 'rebind.acme.test': { A: ['127.0.0.1'] } });
        }
      },
      resolve6: (host: string) => real.resolve6(host),
      // Only the plain overloads (host → addresses) are ever called.
    } as Pick<Resolver, 'resolve4' | 'resolve6'>;
    const client = new WebhookClient({ timeoutSeconds: TIMEOUT_SECONDS, resolver: rebinding, allowPrivateNetworks: false });
    const first = await post(client, `http://rebind.acme.test:${receiver.port}/hook`);
    expect(first.status).not.toBe(RECEIVER_STATUS);
    // A new connection (the first may still be open) asks again, gets loopback, and refuses it.
    const fresh = new WebhookClient({ timeoutSeconds: TIMEOUT_SECONDS, resolver: rebinding, allowPrivateNetworks: false });
    const second = await post(fresh, `http://rebind.acme.test:${receiver.port}/again`);
    await Promise.all([client.close(), fresh.close()]);
    expect(second).toMatchObject({ status: null, error: expect.stringMatching(/does not resolve to a public address/) });
    expect(receiver.hits).toEqual([]);
    expect(dns.queries.filter((q) => q.name === 'rebind.acme.test' && q.type === 'A')).toHaveLength(2);
  });

  test('when DNS_SERVERS call a name public that the system resolver (/etc/hosts) takes to this machine, then the POST goes to the public address, never here', async () => {
    // The machine's own name resolves locally through the system resolver; a client that
    // checked with DNS_SERVERS but let the socket look the name up again would reach the receiver.
    const local = hostname().toLowerCase();
    dns.setZone({ [local]: { A: [PUBLIC_IP] } });
    const client = new WebhookClient({ timeoutSeconds: TIMEOUT_SECONDS, resolver: createResolver([dns.address], 1_000), allowPrivateNetworks: false });
    const result = await post(client, `http://${local}:${receiver.port}/hook`);
    await client.close();
    expect(result.status).not.toBe(RECEIVER_STATUS);
    expect(receiver.hits).toEqual([]);
    expect(dns.queries.some((q) => q.name === local && q.type === 'A')).toBe(true);
  });
});

describe('SSRF probes at delivery: proxies from the environment', () => {
  const PROXY_VARIABLES = ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy', 'NO_PROXY', 'no_proxy'];
  const saved = new Map<string, string | undefined>();
  let proxy: Awaited<ReturnType<typeof startReceiver>>;
  let dns: DnsServer;
  beforeAll(async () => {
    proxy = await startReceiver();
    dns = await new DnsServer({ zone: { 'inside.acme.test': { A: ['10.0.0.7'] }, 'outside.acme.test': { A: [PUBLIC_IP] } } }).start();
    for (const name of PROXY_VARIABLES) saved.set(name, process.env[name]);
    for (const name of PROXY_VARIABLES.filter((n) => !/no_proxy/i.test(n))) process.env[name] = `http://127.0.0.1:${proxy.port}`;
  });
  afterAll(async () => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    proxy.server.close();
    await dns.stop();
  });

  test('when HTTP_PROXY and the like name a proxy, then deliveries do not go through it: a private host is still refused, and nothing reaches the proxy', async () => {
    const client = new WebhookClient({ timeoutSeconds: TIMEOUT_SECONDS, resolver: createResolver([dns.address], 1_000), allowPrivateNetworks: false });
    const inside = await post(client, 'http://inside.acme.test/hook');
    const outside = await post(client, 'http://outside.acme.test:9/hook');
    await client.close();
    expect(inside).toMatchObject({ status: null, error: expect.stringMatching(/inside\.acme\.test does not resolve to a public address/) });
    expect(outside.status).not.toBe(RECEIVER_STATUS);
    expect(proxy.hits).toEqual([]);
  });
});
