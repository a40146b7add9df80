import ipaddr from 'ipaddr.js';
import type { DomainResolver } from '../check-domain-records';
import { answer } from './dns-answers';

/**
 * The addresses an SPF record is evaluated for: some that DOMAIN_SPF_MECHANISMS authorizes (ours,
 * which must pass) and, per address family, one that none of them names (which must not).
 */
export interface SpfTestAddresses {
  /** Addresses ours authorize, each with the configured term it comes from. */
  ours: Array<{ ip: string; term: string }>;
  /** Addresses none of our terms authorize: documentation ranges (RFC 5737, RFC 3849). */
  outsiders: string[];
  /** Configured terms no address could be found for (`exists:`, macros, a provider's empty record). */
  untestable: string[];
  /** DNS did not answer while following our terms: nothing can be said yet. */
  dnsFailed: boolean;
}

type Network = [ipaddr.IPv4 | ipaddr.IPv6, number];

// Bounded work: DNS lookups made to follow our terms (include:, a:, mx:, redirect=), how deep
// include:/redirect= chains are followed, and how many addresses are evaluated.
const MAX_LOOKUPS = 30;
const MAX_DEPTH = 5;
const MAX_MX_HOSTS = 10;
const ADDRESSES_PER_TERM = 4;
const MAX_ADDRESSES = 12;
// TEST-NET-1/2/3 and 2001:db8::/32, not routed anywhere: the first one outside our networks is used.
const OUTSIDERS_V4 = ['192.0.2.1', '198.51.100.1', '203.0.113.1', '192.0.2.254'];
const OUTSIDERS_V6 = ['2001:db8:ffff::1', '2001:db8:fffe::1', '2001:db8::ffff'];

class DnsFailed extends Error {}

/** Derives the test addresses from the configured mechanisms, resolving include:/a:/mx: targets through `resolver`. */
export async function spfTestAddresses(resolver: DomainResolver, mechanisms: string, domain: string): Promise<SpfTestAddresses> {
  const budget = { lookups: MAX_LOOKUPS };
  const result: SpfTestAddresses = { ours: [], outsiders: [], untestable: [], dnsFailed: false };
  const all: Network[] = [];
  for (const term of mechanisms.split(/\s+/).filter(Boolean)) {
    let networks: Network[];
    try {
      networks = await authorizedNetworks(resolver, term, domain, 0, budget);
    } catch (err) {
      if (!(err instanceof DnsFailed)) throw err;
      return { ...result, dnsFailed: true };
    }
    all.push(...networks);
    const addresses = [...new Set(networks.flatMap(edges))].slice(0, ADDRESSES_PER_TERM);
    if (addresses.length === 0) result.untestable.push(term);
    for (const ip of addresses) if (result.ours.length < MAX_ADDRESSES) result.ours.push({ ip, term });
  }
  for (const candidates of [OUTSIDERS_V4, OUTSIDERS_V6]) {
    const outsider = candidates.find((ip) => !all.some((network) => contains(network, ip)));
    if (outsider) result.outsiders.push(outsider);
  }
  return result;
}

/** The networks one `+` term authorizes, following include:/redirect= into the target's record. */
async function authorizedNetworks(resolver: DomainResolver, term: string, domain: string, depth: number, budget: { lookups: number }): Promise<Network[]> {
  const match = /^([+\-?~]?)([a-z0-9]+)([:=]?)(.*)$/i.exec(term);
  if (!match || (match[1] !== '' && match[1] !== '+')) return [];
  const name = (match[2] ?? '').toLowerCase();
  const value = match[4] ?? '';
  if (value.includes('%')) return []; // a macro: depends on the client, not derivable
  switch (name) {
    case 'ip4':
    case 'ip6': {
      const [address = '', bits] = value.split('/');
      if (!ipaddr.isValid(address)) return [];
      const parsed = ipaddr.parse(address);
      const max = parsed.kind() === 'ipv4' ? 32 : 128;
      return [[parsed, bits === undefined ? max : Math.min(Number(bits), max)]];
    }
    case 'a':
    case 'mx': {
      const [, target = '', cidr4, cidr6] = /^(.*?)(?:\/(\d+))?(?:\/\/(\d+))?$/.exec(match[3] === ':' ? value : `${match[3]}${value}`) ?? [];
      const host = (target.replace(/^:/, '') || domain).replace(/\.$/, '');
      const hosts = name === 'a' ? [host] : (await lookup(budget, () => resolver.resolveMx(host))).sort((x, y) => x.priority - y.priority).slice(0, MAX_MX_HOSTS).map((mx) => mx.exchange);
      const networks: Network[] = [];
      for (const h of hosts) {
        for (const ip of await lookup(budget, () => resolver.resolve4(h))) networks.push([ipaddr.parse(ip), Math.min(Number(cidr4 ?? 32), 32)]);
        for (const ip of await lookup(budget, () => resolver.resolve6(h))) networks.push([ipaddr.parse(ip), Math.min(Number(cidr6 ?? 128), 128)]);
      }
      return networks;
    }
    case 'include':
    case 'redirect': {
      if (depth >= MAX_DEPTH || value === '') return [];
      const target = value.replace(/\.$/, '');
      const records = (await lookup(budget, async () => (await resolver.resolveTxt(target)).map((chunks) => chunks.join('')))).filter((t) => /^v=spf1( |$)/i.test(t));
      if (records.length !== 1) return [];
      const terms = (records[0] ?? '').split(' ').slice(1).filter(Boolean);
      // A redirect= in a record with an all term is never followed (RFC 7208 §6.1).
      const hasAll = terms.some((t) => /^[+\-?~]?all$/i.test(t));
      const networks: Network[] = [];
      for (const t of terms) {
        if (hasAll && /^redirect=/i.test(t)) continue;
        networks.push(...(await authorizedNetworks(resolver, t, target, depth + 1, budget)));
      }
      return networks;
    }
    default:
      return []; // all, exists:, ptr: authorize nothing we can name
  }
}

/** One lookup within the budget: its records, none when absent or over budget; throws DnsFailed when DNS did not answer. */
async function lookup<T>(budget: { lookups: number }, query: () => Promise<T[]>): Promise<T[]> {
  if (budget.lookups <= 0) return [];
  budget.lookups -= 1;
  const result = await answer(query);
  if (result.kind === 'failed') throw new DnsFailed(result.code);
  return result.kind === 'records' ? result.records : [];
}

/** The first and the last address of a network. */
function edges([address, bits]: Network): string[] {
  const cidr = `${address.toString()}/${bits}`;
  const family = address.kind() === 'ipv4' ? ipaddr.IPv4 : ipaddr.IPv6;
  return [family.networkAddressFromCIDR(cidr).toString(), family.broadcastAddressFromCIDR(cidr).toString()];
}

function contains([address, bits]: Network, ip: string): boolean {
  const parsed = ipaddr.parse(ip);
  return parsed.kind() === address.kind() && parsed.match(address, bits);
}
