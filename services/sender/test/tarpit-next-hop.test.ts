import { once } from 'node:events';
import { type AddressInfo, createServer, connect, type Server, type Socket } from 'node:net';
import type { Logger } from '@mailroom/core';
import { DnsServer } from '../../../test/support/dns-server';
import { SmtpSink } from '../../../test/support/smtp-sink';
import { Deliverer } from '../src/delivery';

// A next hop that takes connections and never greets (a tarpit), or that refuses them, costs one
// cohort of attempts one connection timeout: the attempts behind it, and those that come while it
// rests, are not made (a next-hop failure: direct delivery tries the next MX). Counted by
// connections at the tarpit, not timed.

const quiet = (): Logger => {
  const logger = { child: () => logger, trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} };
  return logger as unknown as Logger;
};

const raw = (n: number) => Buffer.from(`From: sender@mailroom.test\r\nTo: x@example.test\r\nSubject: ${n}\r\nMessage-ID: <tarpit-${n}@mailroom.test>\r\n\r\nHello.\r\n`);

/** Accepts connections and says nothing, until told to pass them on to `forwardTo`. */
class Tarpit {
  connections = 0;
  forwardTo: number | null = null;
  private readonly sockets = new Set<Socket>();
  private server: Server | null = null;

  async start(host: string, port = 0): Promise<number> {
    const server = createServer((socket) => {
      this.connections++;
      this.sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => this.sockets.delete(socket));
      if (this.forwardTo !== null) {
        const upstream = connect(this.forwardTo, '127.0.0.1');
        upstream.on('error', () => socket.destroy());
        socket.pipe(upstream).pipe(socket);
      }
    });
    server.listen(port, host);
    await once(server, 'listening');
    this.server = server;
    return (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

describe('Deliverer against a next hop that does not take connections', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('when the preferred MX is a tarpit, then 20 messages cost it one cohort of 5 connections and all are delivered through the next MX', async () => {
    const sink = await new SmtpSink({ starttls: false }).start();
    cleanups.push(() => sink.stop());
    const tarpit = new Tarpit();
    // Same port, another loopback address: direct delivery uses one port for every MX.
    await tarpit.start('127.0.0.2', sink.port);
    cleanups.push(() => tarpit.stop());
    const dns = await new DnsServer({
      zone: {
        'example.test': {
          MX: [
            { preference: 10, exchange: 'tarpit.example.test' },
            { preference: 20, exchange: 'mx2.example.test' },
          ],
        },
        'tarpit.example.test': { A: ['127.0.0.2'] },
        'mx2.example.test': { A: ['127.0.0.1'] },
      },
    }).start();
    cleanups.push(() => dns.stop());
    const direct = new Deliverer({ allowPrivateNetworks: true, heloName: 'sender.mailroom.test', logger: quiet(), connectionTimeoutMs: 1_000, mxPort: sink.port, dnsServers: [dns.address] });
    cleanups.push(() => direct.close());

    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, n) => direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: `r${n}@example.test`, raw: raw(n) })));

    expect(outcomes.map((o) => o.kind)).toEqual(Array(20).fill('delivered'));
    expect(outcomes.every((o) => o.kind === 'delivered' && o.host === 'mx2.example.test')).toBe(true);
    expect(sink.messages).toHaveLength(20);
    // Without the gate each message opened a connection of its own to the tarpit and waited it out.
    expect(tarpit.connections).toBeLessThanOrEqual(5);
  });

  it('when the smarthost is a tarpit, then the messages behind the first cohort are deferred at once as not tried, and after the rest it is tried again and delivers', async () => {
    const sink = await new SmtpSink({ starttls: false }).start();
    cleanups.push(() => sink.stop());
    const tarpit = new Tarpit();
    const port = await tarpit.start('127.0.0.1');
    cleanups.push(() => tarpit.stop());
    const relay = new Deliverer({
      outboundSmtpUrl: `smtp://127.0.0.1:${port}`,
      mxPort: 25,
      allowPrivateNetworks: true,
      heloName: 'sender.mailroom.test',
      logger: quiet(),
      connectionTimeoutMs: 1_000,
      nextHopRestMs: 1_500,
    });
    cleanups.push(() => relay.close());
    const send = (n: number) => relay.deliver({ envelopeFrom: 'b@mailroom.test', recipient: `r${n}@example.test`, raw: raw(n) });

    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, n) => send(n)));

    expect(outcomes.map((o) => o.kind)).toEqual(Array(20).fill('deferred'));
    const errors = outcomes.map((o) => (o.kind === 'deferred' ? o.error : ''));
    expect(errors.filter((e) => /Greeting never received/.test(e) && !/not tried/.test(e))).toHaveLength(5);
    expect(errors.filter((e) => /^ENEXTHOPDOWN: not tried: the next hop failed to connect moments ago \(Greeting never received\)/.test(e))).toHaveLength(15);
    expect(tarpit.connections).toBe(5);
    expect((await send(21)).kind).toBe('deferred');
    expect(tarpit.connections).toBe(5);

    tarpit.forwardTo = sink.port;
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    expect(await send(22)).toMatchObject({ kind: 'delivered' });
    expect(sink.messages).toHaveLength(1);
  });

  it('when the smarthost refuses connections, then the messages behind the first are not tried until the rest is over', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const relay = new Deliverer({ outboundSmtpUrl: `smtp://127.0.0.1:${port}`, mxPort: 25, allowPrivateNetworks: true, heloName: 'sender.mailroom.test', logger: quiet(), connectionTimeoutMs: 1_000 });
    cleanups.push(() => relay.close());

    const first = await relay.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'r1@example.test', raw: raw(1) });
    const second = await relay.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'r2@example.test', raw: raw(2) });

    expect(first).toMatchObject({ kind: 'deferred', error: expect.stringMatching(/ECONNREFUSED/) });
    expect(second).toMatchObject({ kind: 'deferred', error: expect.stringMatching(/^ENEXTHOPDOWN: not tried: .*ECONNREFUSED/) });
  });
});
