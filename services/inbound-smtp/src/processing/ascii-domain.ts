import { normalizeDomain } from '@mailroom/core';

// Only a domain with a byte outside ASCII needs UTS #46 (a few µs): an ASCII one is taken as it is.
const NON_ASCII = /\P{ASCII}/u;

/**
 * A domain as SPF, DKIM and DMARC look it up and name it (RFC 8616 §3–5): an internationalized
 * one in A-labels by UTS #46 (normalized, so an NFD `bu\u0308cher.example` is bücher.example's
 * `xn--bcher-kva.example`), anything else as it came. A name that is no host name (an address
 * literal, garbage) is kept: it has no record either way.
 */
export function asciiDomain(domain: string): string {
  return NON_ASCII.test(domain) ? (normalizeDomain(domain) ?? domain) : domain;
}

/**
 * The Author Domain of a From address as DMARC looks it up (RFC 7489 §3.2, RFC 8616 §5): lower
 * case, no trailing dot, in A-labels (asciiDomain). mailauth converts with punycode.toASCII
 * alone, which does not normalize: a From of `jürgen@bu\u0308cher.example` was looked up as
 * `_dmarc.xn--bucher-…`, found no record, and escaped bücher.example's p=reject.
 */
export function authorDomain(address: string): string {
  return asciiDomain(address.slice(address.lastIndexOf('@') + 1).toLowerCase().replace(/\.$/, ''));
}

/** Whether mailauth's own DMARC lookup would use another name than authorDomain's. */
export function isInternationalized(address: string): boolean {
  return NON_ASCII.test(address.slice(address.lastIndexOf('@') + 1));
}
