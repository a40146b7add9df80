import { createResolver } from '@mailroom/core';

/** Per-query wait before c-ares gives up, in ms; with one retry a silent server costs 3×. */
export const AUTH_DNS_TIMEOUT_MS = 1_500;
/** DNS time one message may spend in all (SPF includes, DKIM keys, DMARC, ARC), in ms. */
export const DEFAULT_DNS_BUDGET_MS = 8_000;

/** What mailauth calls to resolve: `(name, rrtype)` → records, errors carrying a `code`. */
export type DnsLookup = (name: string, rrtype: string) => Promise<unknown>;

/**
 * One message's DNS lookups for mailauth, through `servers` (DNS_SERVERS) when given, else the
 * system's. Each query has a timeout and one retry; once the message's budget is spent, every
 * further query fails at once with ETIMEOUT, which mailauth reports as `temperror`. So a dead
 * resolver delays a message by about the budget, never more.
 */
export function createDnsLookup(options: { servers?: string[]; timeoutMs?: number; budgetMs?: number } = {}): DnsLookup {
  const resolver = createResolver(options.servers, options.timeoutMs ?? AUTH_DNS_TIMEOUT_MS);
  const deadline = Date.now() + (options.budgetMs ?? DEFAULT_DNS_BUDGET_MS);
  return async (name, rrtype) => {
    const left = deadline - Date.now();
    if (left <= 0) throw timeoutError(name);
    let timer: NodeJS.Timeout | undefined;
    const expiry = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        resolver.cancel();
        reject(timeoutError(name));
      }, left);
    });
    try {
      return await Promise.race([resolver.resolve(name, rrtype), expiry]);
    } finally {
      clearTimeout(timer);
    }
  };
}

function timeoutError(name: string): Error {
  return Object.assign(new Error(`DNS lookup of ${name} timed out`), { code: 'ETIMEOUT' });
}
