import { isIP } from 'node:net';
import { getPublicSuffix } from 'tldts';
import { dkimRecordName } from './domain-records';
import { DKIM_SELECTOR_LENGTH } from './dkim-key';
import { normalizeDomain } from './route-match';

/** A sending domain's name as stored, or why it cannot be one. */
export type SendingDomainName = { ok: true; name: string } | { ok: false; reason: string };

// A top-level domain: letters (RFC 1123 §2.1 and RFC 3696 §2: never all digits, and none has
// fewer than two), or an A-label (`xn--p1ai`, .рф), in either case. What mail can be sent to or from.
const TLD = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/i;
// A name in DNS is at most 253 octets as text (255 on the wire, RFC 1035 §2.3.4).
const MAX_DNS_NAME = 253;
// The longest name whose DKIM record name (`<selector>._domainkey.<name>`, the longest of its
// records) is still a DNS name.
export const MAX_SENDING_DOMAIN_OCTETS = MAX_DNS_NAME - dkimRecordName('x'.repeat(DKIM_SELECTOR_LENGTH), '').length;

/** Whether a host name's last label can be a top-level domain (not `123`, `1com` or `0x7f`). */
export function hasTopLevelLabel(domain: string): boolean {
  return TLD.test(domain.slice(domain.lastIndexOf('.') + 1));
}

/**
 * Normalizes a name given to `POST /domains`: lower-cased, its ASCII (punycode) form, no
 * trailing dot. Refused, each with its reason: IP addresses (in any spelling), names that are no
 * host name, single labels, a top-level label mail cannot use, names too long for their records,
 * and names that are a public suffix themselves (`co.uk`, `github.io`), which nobody can prove to own alone.
 */
export function normalizeSendingDomain(input: string): SendingDomainName {
  const trimmed = input.trim().replace(/^\[|\]$/g, '');
  if (isIP(trimmed) !== 0) return { ok: false, reason: 'must be a domain name, not an IP address' };
  const name = normalizeDomain(input);
  if (name === null) return { ok: false, reason: whyNotAHostName(input) };
  // Labels that are all numbers (decimal, octal or 0x hex) are an IPv4 address in another
  // spelling, as inet_aton and URL parsers read "1.2.3.4." or "0x7f.1".
  if (name.split('.').every((label) => /^(?:0x[0-9a-f]*|[0-9]+)$/.test(label))) return { ok: false, reason: 'must be a domain name, not an IP address' };
  if (!hasTopLevelLabel(name)) return { ok: false, reason: `must end in a top-level domain of letters (or an A-label), which "${name.slice(name.lastIndexOf('.') + 1)}" is not` };
  if (name.length > MAX_SENDING_DOMAIN_OCTETS) {
    return { ok: false, reason: `is ${name.length} octets long; at most ${MAX_SENDING_DOMAIN_OCTETS} fit, as its DKIM record's name (<selector>._domainkey.<name>) must stay within DNS's ${MAX_DNS_NAME}` };
  }
  if (getPublicSuffix(name, { allowPrivateDomains: true }) === name) {
    return { ok: false, reason: `"${name}" is a public suffix; add a domain registered under it` };
  }
  return { ok: true, name };
}

/** Why `normalizeDomain` refused a name, in words a person can act on. */
function whyNotAHostName(input: string): string {
  const name = input.trim().replace(/\.$/, '');
  if (/[\s\p{Cc}]/u.test(name)) return 'must be a domain name without spaces or control characters';
  const labels = name.split('.');
  if (labels.length < 2) return 'must be a domain name with at least two labels, such as "acme.example"';
  if (labels.some((label) => label === '')) return 'must be a domain name without empty labels (two dots in a row, or a leading dot)';
  if (/[@/:*?#[\]\\]/.test(name)) return 'must be a domain name only, such as "acme.example", not an address, URL or pattern';
  if (/_/.test(name)) return 'must be a host name: letters, digits and hyphens, without underscores';
  if (labels.some((label) => /^-|-$/.test(label))) return 'must be a host name whose labels neither start nor end with a hyphen';
  if (Buffer.byteLength(name) > MAX_DNS_NAME) return `is longer than DNS's ${MAX_DNS_NAME} octets`;
  return 'must be a host name (IDNA 2008 / UTS #46): letters, digits and hyphens, labels of at most 63 octets, valid punycode, and no mix of scripts or directions a browser would refuse';
}
