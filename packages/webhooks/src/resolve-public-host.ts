import type { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPrivateAddress } from '@mailroom/core';

/** An address a webhook host resolved to, checked and fit to connect to. */
export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

/** Why a webhook host may not be connected to: it resolves nowhere, or somewhere private. */
export class UnsafeWebhookHostError extends Error {
  override readonly name = 'UnsafeWebhookHostError';
  constructor(
    readonly hostname: string,
    readonly reason: 'private_address' | 'unresolvable',
    message: string,
    /** The refused address (for operators; never in the message, see resolvePublicHost). */
    readonly address?: string,
  ) {
    super(message);
  }
}

export interface ResolveOptions {
  /** The `DNS_SERVERS` resolver (`createResolver`). */
  resolver: Pick<Resolver, 'resolve4' | 'resolve6'>;
  allowPrivateNetworks: boolean;
}

/**
 * Resolves a webhook URL's host (A and AAAA through `DNS_SERVERS`; an IP literal as itself;
 * `localhost` and `*.localhost` as loopback, RFC 6761) and refuses it when any address is
 * loopback, private, link-local or otherwise not public unicast, unless
 * ALLOW_PRIVATE_NETWORKS. The gateway checks URLs at creation with it; the dispatcher checks
 * at every new connection and connects only to an address returned here (no DNS rebinding).
 */
export async function resolvePublicHost(hostname: string, options: ResolveOptions): Promise<CheckedAddress[]> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '').toLowerCase();
  const addresses = await lookupAll(host, options.resolver);
  // The message reaches the caller (a 422, the attempt log). For a name it is the same whether the
  // name does not resolve or resolves to a private address, and names no address, so a tenant
  // cannot map the internal DNS (which internal names exist) by creating endpoints; `reason`
  // and `address` tell operators which. An IP literal is named: the URL itself did.
  const refusedName = `The host ${hostname} does not resolve to a public address (a private, loopback or link-local address is refused while ALLOW_PRIVATE_NETWORKS is off).`;
  if (addresses.length === 0) throw new UnsafeWebhookHostError(hostname, 'unresolvable', refusedName);
  const blocked = addresses.find((a) => isPrivateAddress(a.address));
  if (blocked && !options.allowPrivateNetworks) {
    const message =
      isIP(host) !== 0 ? `The address ${hostname} is a private, loopback or link-local address (ALLOW_PRIVATE_NETWORKS is off).` : refusedName;
    throw new UnsafeWebhookHostError(hostname, 'private_address', message, blocked.address);
  }
  return addresses;
}

async function lookupAll(host: string, resolver: ResolveOptions['resolver']): Promise<CheckedAddress[]> {
  const literal = isIP(host);
  if (literal !== 0) return [{ address: host, family: literal as 4 | 6 }];
  if (host === 'localhost' || host.endsWith('.localhost')) {
    return [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ];
  }
  const [v4, v6] = await Promise.all([resolveOrNone(() => resolver.resolve4(host)), resolveOrNone(() => resolver.resolve6(host))]);
  return [...v4.map((address) => ({ address, family: 4 as const })), ...v6.map((address) => ({ address, family: 6 as const }))];
}

/** NXDOMAIN and NODATA are "no address"; a server failure or timeout is an error worth reporting. */
async function resolveOrNone(query: () => Promise<string[]>): Promise<string[]> {
  try {
    return await query();
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') return [];
    throw err;
  }
}
