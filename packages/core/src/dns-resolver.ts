import { Resolver } from 'node:dns/promises';

/** Per-query wait before c-ares retries or gives up, in ms. */
export const DEFAULT_DNS_TIMEOUT_MS = 5_000;
// c-ares sends each query this many times (doubling the wait) before ETIMEOUT.
const DNS_TRIES = 2;

/**
 * A DNS resolver of its own, so lookups (MX hosts, domain verification, webhook hosts, mail
 * authentication) use `DNS_SERVERS` without changing the process-wide servers other components
 * resolve with. `servers` take the forms `ip`, `ip:port` and
 * `[v6]:port`; an invalid entry throws (a configuration error, found at start).
 */
export function createResolver(servers: string[] | undefined, timeoutMs = DEFAULT_DNS_TIMEOUT_MS): Resolver {
  const resolver = new Resolver({ timeout: timeoutMs, tries: DNS_TRIES });
  if (servers && servers.length > 0) resolver.setServers(servers);
  return resolver;
}
