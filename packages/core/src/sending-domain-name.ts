import { isIP } from 'node:net';
import { getPublicSuffix } from 'tldts';
import { normalizeDomain } from './route-match';

/** A sending domain's name as stored, or why it cannot be one. */
export type SendingDomainName = { ok: true; name: string } | { ok: false; reason: string };

/**
 * Normalizes a name given to `POST /domains`: lower-cased, its ASCII (punycode) form, no
 * trailing dot. Refused: IP addresses, single labels, and names that are a public suffix
 * themselves (`co.uk`, `github.io`), which nobody can prove to own alone.
 */
export function normalizeSendingDomain(input: string): SendingDomainName {
  const trimmed = input.trim().replace(/^\[|\]$/g, '');
  if (isIP(trimmed) !== 0) return { ok: false, reason: 'must be a domain name, not an IP address' };
  const name = normalizeDomain(input);
  if (name === null) return { ok: false, reason: 'must be a domain name with at least two labels, such as "acme.example"' };
  // A name of digits and dots is an IPv4 address in another spelling ("1.2.3.4." or "0x7f.1").
  if (/^[0-9.]+$/.test(name) || /^(0x[0-9a-f]+\.?)+$/.test(name)) return { ok: false, reason: 'must be a domain name, not an IP address' };
  if (getPublicSuffix(name, { allowPrivateDomains: true }) === name) {
    return { ok: false, reason: `"${name}" is a public suffix; add a domain registered under it` };
  }
  return { ok: true, name };
}
