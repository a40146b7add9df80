import { domainToASCII } from 'node:url';

/**
 * Inbound routing rules (DESIGN §7), in one place for the API that stores routes and the MX
 * that looks them up: a route's match is an exact address or `*@domain`; a recipient matches
 * its exact address first, then the address without a `+tag`, then its domain's wildcard;
 * everything compares case-insensitively (domains in their ASCII form).
 */

// RFC 5321 dot-atom local parts; quoted local parts are not routable here.
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const MAX_ADDRESS = 254;

/** A domain in its lower-case ASCII (punycode) form, or null when it is not a host name. */
export function normalizeDomain(domain: string): string | null {
  // domainToASCII silently drops tabs, CR and LF ("acme.test\r\nx" → "acme.testx").
  if (/[\s\p{Cc}]/u.test(domain.trim())) return null;
  const ascii = domainToASCII(domain.trim().replace(/\.$/, '')).toLowerCase();
  if (!ascii || ascii.length > 253) return null;
  const labels = ascii.split('.');
  return labels.length >= 2 && labels.every((label) => LABEL.test(label)) ? ascii : null;
}

/** `local@domain` lower-cased with an ASCII domain, or null when it is not a routable address. */
export function normalizeAddress(address: string): string | null {
  const at = address.lastIndexOf('@');
  if (at <= 0 || at > 64) return null;
  const local = address.slice(0, at);
  const domain = normalizeDomain(address.slice(at + 1));
  if (!domain || !LOCAL_PART.test(local)) return null;
  const normalized = `${local.toLowerCase()}@${domain}`;
  return normalized.length <= MAX_ADDRESS ? normalized : null;
}

/**
 * The stored form of a route's match: `support@acme.test` or `*@acme.test`, lower-cased, or
 * null when the input is neither (an exact address may not contain `*`).
 */
export function normalizeRouteMatch(match: string): string | null {
  const trimmed = match.trim();
  if (trimmed.startsWith('*@')) {
    const domain = normalizeDomain(trimmed.slice(2));
    return domain ? `*@${domain}` : null;
  }
  // `*` is legal in a local part, but a route with one would read as a wildcard it is not.
  return trimmed.includes('*') ? null : normalizeAddress(trimmed);
}

/**
 * The route matches that may claim a recipient, most specific first: the address, the
 * address without its `+tag`, then `*@domain`. Empty when the address is not routable.
 */
export function routeCandidates(recipient: string): string[] {
  const address = normalizeAddress(recipient);
  if (!address) return [];
  const at = address.lastIndexOf('@');
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  const candidates = [address];
  const plus = local.indexOf('+');
  if (plus > 0) candidates.push(`${local.slice(0, plus)}@${domain}`);
  candidates.push(`*@${domain}`);
  return candidates;
}
