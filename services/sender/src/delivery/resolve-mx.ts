import type { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { isPrivateAddress } from '@mailroom/core';
import { classifyReply } from './classify-smtp-result';
import type { DeliveryOutcome } from './outcome';

/** One next hop: the MX host name (used for TLS SNI) and the addresses to connect to, in order. */
export interface MxHost {
  name: string;
  addresses: string[];
}

/** Where to deliver for a domain, or the outcome when DNS already decides it. */
export type MxRoute = { kind: 'hosts'; hosts: MxHost[] } | { kind: 'outcome'; outcome: DeliveryOutcome };

export interface ResolveMxOptions {
  resolver: Resolver;
  /** Keep loopback, private and link-local addresses instead of refusing them (no SSRF). */
  allowPrivateNetworks: boolean;
}

// MX hosts looked at per domain; more is a misconfiguration or an attempt to make us work.
const MAX_MX_HOSTS = 10;
// Answers that mean "no such name" or "no record of this type": definitive, not temporary.
const NOT_FOUND = new Set(['ENOTFOUND', 'ENODATA']);

type Lookup<T> = { ok: true; value: T } | { ok: false; code: string; error: string };

/**
 * Resolves where mail for `domain` goes (RFC 5321 §5.1): MX records by preference (equal
 * preferences shuffled), else the domain itself as an implicit MX; each host's A then AAAA
 * addresses, without private ones unless allowed. Decides the outcome itself when DNS is
 * final (NXDOMAIN, null MX, only private addresses) or temporarily failing.
 */
export async function resolveMxRoute(domain: string, options: ResolveMxOptions): Promise<MxRoute> {
  const literal = /^\[(?:ipv6:)?([^\]]+)\]$/i.exec(domain)?.[1];
  if (literal !== undefined && isIP(literal)) {
    return routeFrom(domain, [{ name: literal, addresses: [literal] }], false, options);
  }
  const name = domainToASCII(domain.replace(/\.$/, '').toLowerCase());
  if (!name) return bounce('5.1.2', `${domain} is not a valid domain name`);

  const mx = await lookup(() => options.resolver.resolveMx(name));
  if (mx.ok && mx.value.length > 0) {
    const exchanges = mx.value.filter((record) => record.exchange !== '' && record.exchange !== '.');
    if (exchanges.length === 0) return bounce('5.1.10', `${name} does not accept mail (null MX, RFC 7505)`);
    const ordered = sortByPreference(exchanges).slice(0, MAX_MX_HOSTS);
    const hosts = await Promise.all(ordered.map((record) => resolveHost(record.exchange.toLowerCase(), options.resolver)));
    return routeFrom(name, hosts, false, options);
  }
  if (!mx.ok && !NOT_FOUND.has(mx.code)) return defer(`MX lookup for ${name} failed: ${mx.error}`);

  // No MX records: the domain itself is the implicit MX, if it exists and has an address.
  const implicit = await resolveHost(name, options.resolver);
  if (!mx.ok && mx.code === 'ENOTFOUND' && implicit.notFound) {
    return bounce('5.1.2', `Domain ${name} does not exist (NXDOMAIN)`);
  }
  return routeFrom(name, [implicit], true, options);
}

interface ResolvedHost extends MxHost {
  /** A lookup failed temporarily, so a missing address may yet appear. */
  temporaryError: string | null;
  /** The name itself does not exist (NXDOMAIN for both A and AAAA). */
  notFound: boolean;
}

async function resolveHost(name: string, resolver: Resolver): Promise<ResolvedHost> {
  if (isIP(name)) return { name, addresses: [name], temporaryError: null, notFound: false };
  const [a, aaaa] = await Promise.all([lookup(() => resolver.resolve4(name)), lookup(() => resolver.resolve6(name))]);
  const failed = [a, aaaa].find((result) => !result.ok && !NOT_FOUND.has(result.code));
  return {
    name,
    addresses: [...(a.ok ? a.value : []), ...(aaaa.ok ? aaaa.value : [])],
    temporaryError: failed && !failed.ok ? `${name}: ${failed.error}` : null,
    notFound: !a.ok && a.code === 'ENOTFOUND' && !aaaa.ok && aaaa.code === 'ENOTFOUND',
  };
}

function routeFrom(domain: string, hosts: ResolvedHost[] | MxHost[], implicit: boolean, options: ResolveMxOptions): MxRoute {
  const usable: MxHost[] = [];
  const refused: string[] = [];
  const temporary: string[] = [];
  for (const host of hosts) {
    const addresses = options.allowPrivateNetworks
      ? host.addresses
      : host.addresses.filter((address) => !isPrivateAddress(address));
    if (addresses.length < host.addresses.length) refused.push(host.name);
    if (addresses.length > 0) usable.push({ name: host.name, addresses });
    if ('temporaryError' in host && host.temporaryError) temporary.push(host.temporaryError);
  }
  if (usable.length > 0) return { kind: 'hosts', hosts: usable };
  // A temporary failure may hide a usable address: retrying can change the answer.
  if (temporary.length > 0) return defer(`Address lookup failed for ${temporary.join('; ')}`);
  if (refused.length > 0) {
    // Retrying will not change where the domain points, so this is permanent, but it says
    // nothing about the recipient: no suppression.
    return bounce(
      '5.7.1',
      `Mail host ${refused.join(', ')} of ${domain} resolves only to private or loopback addresses, which outbound delivery refuses (ALLOW_PRIVATE_NETWORKS is off)`,
    );
  }
  if (implicit) return bounce('5.4.4', `${domain} has neither an MX record nor an address`);
  return defer(`No MX host of ${domain} has an address (${hosts.map((host) => host.name).join(', ')})`);
}

function sortByPreference<T extends { priority: number }>(records: T[]): T[] {
  // Hosts of equal preference share the load (RFC 5321 §5.1): random order among them.
  const keyed = records.map((record) => ({ record, tieBreak: Math.random() }));
  keyed.sort((a, b) => a.record.priority - b.record.priority || a.tieBreak - b.tieBreak);
  return keyed.map(({ record }) => record);
}

async function lookup<T>(query: () => Promise<T>): Promise<Lookup<T>> {
  try {
    return { ok: true, value: await query() };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
    return { ok: false, code, error: `${code} (${(error as Error).message})` };
  }
}

function bounce(enhancedCode: string, message: string): MxRoute {
  return { kind: 'outcome', outcome: classifyReply({ code: null, enhancedCode, message }, message) };
}

function defer(error: string): MxRoute {
  return { kind: 'outcome', outcome: { kind: 'deferred', smtp: null, error, retryAfterSeconds: null } };
}
