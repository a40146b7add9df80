import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { type AddressInfo, createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createResolver } from '@mailroom/core';
import { DnsServer } from '../../../test/support/dns-server';
import { WebhookClient } from './webhook-client';

// Short, so the receivers that never connect end the test quickly.
const TIMEOUT_SECONDS = 0.5;
const post = (client: WebhookClient, url: string) => client.post(url, '{"id":"evt_1"}', { 'content-type': 'application/json' });

describe('WebhookClient when no connection is made', () => {
  let silentServer: NetServer;
  let silentPort = 0;
  let dns: DnsServer;
  const accepted: Socket[] = [];

  beforeAll(async () => {
    // Accepts TCP and never says a word: a TLS handshake to it never completes.
    silentServer = createNetServer((socket) => {
      accepted.push(socket);
      socket.on('error', () => undefined);
    });
    silentServer.listen(0, '127.0.0.1');
    await once(silentServer, 'listening');
    silentPort = (silentServer.address() as AddressInfo).port;
    dns = await new DnsServer({ zone: { 'hook.acme.test': { A: ['127.0.0.1'] } }, servfail: ['broken.acme.test'], silent: ['silent.acme.test'] }).start();
  });
  afterAll(async () => {
    for (const socket of accepted) socket.destroy();
    silentServer.close();
    await dns.stop();
  });

  test('when the response head trickles in a byte at a time, then the exchange ends at the timeout all the same: it bounds the whole exchange, not each gap', async () => {
    const trickling = createNetServer((socket) => {
      socket.on('error', () => undefined);
      socket.once('data', () => {
        const head = 'HTTP/1.1 200 OK\r\nX-Slow: yes\r\nContent-Length: 2\r\n\r\nok';
        let sent = 0;
        const timer = setInterval(() => (sent < head.length ? socket.write(head.charAt(sent++)) : clearInterval(timer)), 50);
        socket.on('close', () => clearInterval(timer));
      });
    });
    trickling.listen(0, '127.0.0.1');
    await once(trickling, 'listening');
    const client = new WebhookClient({ timeoutSeconds: TIMEOUT_SECONDS, resolver: createResolver([], 1_000), allowPrivateNetworks: true });
    const result = await post(client, `http://127.0.0.1:${(trickling.address() as AddressInfo).port}/hook`);
    await client.close();
    trickling.close();
    expect(result).toMatchObject({ status: null, error: `No answer within ${TIMEOUT_SECONDS} s (WEBHOOK_TIMEOUT_SECONDS).` });
    expect(result.durationMs).toBeLessThan(TIMEOUT_SECONDS * 1000 + 3_000);
  });

  test('when the TLS handshake never completes, then the attempt ends at the timeout saying no connection was made, not that the receiver did not answer', async () => {
    const client = new WebhookClient({ timeoutSeconds: TIMEOUT_SECONDS, resolver: createResolver([dns.address], 1_000), allowPrivateNetworks: true });
    const result = await post(client, `https://hook.acme.test:${silentPort}/hook`);
    await client.close();
    expect(result).toMatchObject({ status: null, error: `No connection within ${TIMEOUT_SECONDS} s (WEBHOOK_TIMEOUT_SECONDS): the host name lookup, the TCP connection or the TLS handshake did not complete.` });
    expect(result.durationMs).toBeGreaterThanOrEqual(TIMEOUT_SECONDS * 1000 - 1);
    expect(result.durationMs).toBeLessThan(TIMEOUT_SECONDS * 1000 + 3_000);
  });

  test('when DNS_SERVERS fail, refuse or time out, then the error says the host could not be looked up, never that the receiver refused', async () => {
    const client = new WebhookClient({ timeoutSeconds: 5, resolver: createResolver([dns.address], 200), allowPrivateNetworks: true });
    // Nothing listens on UDP port 1 of loopback: the query is refused (ICMP port unreachable).
    const refusing = new WebhookClient({ timeoutSeconds: 5, resolver: createResolver(['127.0.0.1:1'], 200), allowPrivateNetworks: true });
    const results = [await post(client, 'http://broken.acme.test/hook'), await post(client, 'http://silent.acme.test/hook'), await post(refusing, 'http://hook.acme.test/hook')];
    await client.close();
    await refusing.close();
    expect(results.map((r) => ({ status: r.status, error: r.error }))).toEqual([
      { status: null, error: 'The host broken.acme.test could not be looked up (DNS answered ESERVFAIL).' },
      { status: null, error: 'The host silent.acme.test could not be looked up (DNS answered ETIMEOUT).' },
      { status: null, error: 'The host hook.acme.test could not be looked up (DNS answered ECONNREFUSED).' },
    ]);
  });
});

describe('WebhookClient and a receiver with a self-signed certificate', () => {
  let dir = '';
  let server: HttpsServer;
  let port = 0;
  let requests = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'webhook-tls-'));
    execFileSync('/usr/bin/openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=localhost',
      '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    server = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (_req, res) => {
      requests++;
      res.end('ok');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('when the endpoint is https with a self-signed certificate, then the attempt fails at once, saying the certificate was refused, and nothing is posted', async () => {
    const client = new WebhookClient({ timeoutSeconds: 5, resolver: createResolver([], 1_000), allowPrivateNetworks: true });
    const results = [await post(client, `https://localhost:${port}/hook`), await post(client, `https://127.0.0.1:${port}/hook`)];
    await client.close();
    for (const result of results) {
      expect(result).toMatchObject({ status: null, body: null, error: 'The TLS certificate was refused: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT).' });
      expect(result.durationMs).toBeLessThan(2_000);
    }
    expect(requests).toBe(0);
  });
});

describe('WebhookClient and receivers that close kept-alive connections unannounced', () => {
  /** A raw receiver: `answer(n)` says what to do with the n-th request (1, 2, …) of a connection. */
  const startReceiver = async (answer: (nth: number) => 'ok' | 'close') => {
    const stats = { connections: 0, requests: 0 };
    const server = createNetServer((socket) => {
      stats.connections++;
      let nth = 0;
      let head = '';
      socket.on('error', () => undefined);
      socket.on('data', (chunk: Buffer) => {
        head += chunk.toString('latin1');
        // The body is the 14 bytes of '{"id":"evt_1"}' after the head.
        if (!head.includes('\r\n\r\n') || head.length < head.indexOf('\r\n\r\n') + 4 + 14) return;
        head = '';
        stats.requests++;
        // Many servers close an idle connection without a Keep-Alive hint (uvicorn after 5 s, for one);
        // here it closes as the next request arrives, as if its close had crossed that request.
        if (answer(++nth) === 'close') socket.destroy();
        else socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return { server, stats, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` };
  };

  test('when the receiver closes a kept-alive connection as the next POST goes out on it, then that POST is made again on a new connection and succeeds', async () => {
    const receiver = await startReceiver((nth) => (nth === 1 ? 'ok' : 'close'));
    const client = new WebhookClient({ timeoutSeconds: 2, resolver: createResolver([], 1_000), allowPrivateNetworks: true });
    const first = await post(client, receiver.url);
    // undici hands the connection back to the pool on a later turn of the event loop.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await post(client, receiver.url);
    await client.close();
    receiver.server.close();
    expect([first, second].map((r) => ({ status: r.status, error: r.error }))).toEqual([
      { status: 200, error: null },
      { status: 200, error: null },
    ]);
    expect(receiver.stats).toEqual({ connections: 2, requests: 3 });
  });

  test('when a new connection closes after reading the POST, without an answer, then it is not posted again (the receiver read it): the failure says so', async () => {
    const receiver = await startReceiver(() => 'close');
    const client = new WebhookClient({ timeoutSeconds: 2, resolver: createResolver([], 1_000), allowPrivateNetworks: true });
    const result = await post(client, receiver.url);
    await client.close();
    receiver.server.close();
    expect(result).toMatchObject({ status: null, error: 'Connection reset before a response.' });
    expect(receiver.stats).toEqual({ connections: 1, requests: 1 });
  });

  test('when every kept-alive connection of the pool closes as its next POST arrives, then the POST is made again on a new connection, not on another kept-alive one, and succeeds', async () => {
    // Each connection answers its first request only.
    const receiver = await startReceiver((nth) => (nth === 1 ? 'ok' : 'close'));
    const client = new WebhookClient({ timeoutSeconds: 2, resolver: createResolver([], 1_000), allowPrivateNetworks: true });
    // Three at once: three connections, each kept alive after its answer.
    const opening = await Promise.all([post(client, receiver.url), post(client, receiver.url), post(client, receiver.url)]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const later = await post(client, receiver.url);
    await client.close();
    receiver.server.close();
    expect([...opening, later].map((r) => r.status)).toEqual([200, 200, 200, 200]);
    // The fourth POST: once on a kept-alive connection (closed), once on a new one (answered).
    expect(receiver.stats).toEqual({ connections: 4, requests: 5 });
  });
});
