import type { Logger } from '@mailroom/core';
import { DnsServer, type DnsZone } from '../../../../test/support/dns-server';
import { Deliverer, type DelivererOptions } from '../../src/delivery';

/** A logger that says nothing. */
export function silentLogger(): Logger {
  const noop = () => undefined;
  const make = (): unknown => ({ child: make, trace: noop, debug: noop, info: noop, warn: noop, error: noop, fatal: noop });
  return make() as Logger;
}

/** example.test's one MX, mx.example.test, at 127.0.0.1: direct delivery reaches a peer on the test's port. */
const MX_ZONE: DnsZone = {
  'example.test': { MX: [{ preference: 10, exchange: 'mx.example.test' }] },
  'mx.example.test': { A: ['127.0.0.1'] },
};

/**
 * Deliverers for tests against one SMTP peer: `deliverer` with the given options, `direct` to the
 * peer's port as example.test's MX (a DNS server of its own). Each is closed, with its DNS
 * server, by the test's `cleanups`, which it runs after each test.
 */
export function peerDeliverers(cleanups: Array<() => Promise<void>>, connectionTimeoutMs: number) {
  const deliverer = (options: Partial<DelivererOptions> & Pick<DelivererOptions, 'mxPort'>): Deliverer => {
    const instance = new Deliverer({ allowPrivateNetworks: true, heloName: 'sender.mailroom.test', logger: silentLogger(), connectionTimeoutMs, ...options });
    cleanups.push(() => instance.close());
    return instance;
  };
  const direct = async (port: number): Promise<Deliverer> => {
    const nameServer = await new DnsServer({ zone: MX_ZONE }).start();
    cleanups.push(() => nameServer.stop());
    return deliverer({ mxPort: port, dnsServers: [nameServer.address] });
  };
  return { deliverer, direct };
}
