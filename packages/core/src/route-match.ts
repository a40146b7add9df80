import { toASCII } from 'tr46';

/**
 * Inbound routing rules (DESIGN §7), in one place for the API that stores routes and the MX
 * that looks them up: a route's match is an exact address or `*@domain`; a recipient matches
 * its exact address first, then the address without a `+tag`, then its domain's wildcard;
 * everything compares case-insensitively (domains in their ASCII form).
 */

// A local part's characters outside quotes: RFC 5321's atext, and (RFC 6531, SMTPUTF8, which the
// MX offers) any non-ASCII character but controls, surrogates and spaces.
const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]|[^\\p{ASCII}\\p{Cc}\\p{Cs}\\p{Z}]";
const DOT_ATOM = new RegExp(`^(?:${ATEXT})+(?:\\.(?:${ATEXT})+)*$`, 'u');
// A quoted local part (RFC 5321 Quoted-string): printable ASCII but `"` and `\` unless escaped,
// and non-ASCII characters but controls and surrogates.
const QUOTED_LOCAL = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e]|[^\p{ASCII}\p{Cc}\p{Cs}])*)"$/u;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const LDH_NAME = /^[A-Za-z0-9.-]+$/;
const A_LABEL = /(?:^|\.)xn--/i;
// RFC 5321's limit of a whole address, in octets (UTF-8): a path of 256 with its angle brackets.
// Its 64-octet limit of a local part (§4.5.3.1.1) is not held against recipients: reply-by-mail
// addresses carry long tokens (`reply+<about 100 characters>@`), other MTAs accept them, and
// §4.5.3.1 asks a receiver to avoid such limits where it can. Sending still holds to it.
const MAX_ADDRESS_OCTETS = 254;

// UTS #46 processing as WHATWG URL does it (nontransitional, hyphens in positions 3–4 allowed),
// plus the checks Node's domainToASCII leaves out: the RFC 5893 Bidi rule over the whole name
// (`1א.example` and `א.1x.example` are not host names) and RFC 5892's context rules for the
// zero-width joiners; STD3 rules keep a label to letters, digits and hyphens.
const UTS46 = { checkBidi: true, checkJoiners: true, checkHyphens: false, useSTD3ASCIIRules: true, transitionalProcessing: false, verifyDNSLength: true } as const;

/** A domain in its lower-case ASCII (punycode) form, or null when it is not a host name. */
export function normalizeDomain(domain: string): string | null {
  // UTS #46 maps some characters away ("acme.test\r\nx" would not be a name at all, but a
  // converter that drops them would make it "acme.testx"): controls and white space are refused first.
  if (/[\s\p{Cc}]/u.test(domain.trim())) return null;
  const name = domain.trim().replace(/\.$/, '');
  // Letters, digits, dots and hyphens with no A-label: UTS #46 would only lower-case it (the
  // common case, which skips the conversion); anything else is converted and A-labels checked.
  const ascii = (LDH_NAME.test(name) && !A_LABEL.test(name) ? name : toASCII(name, UTS46))?.toLowerCase();
  if (!ascii || ascii.length > 253) return null;
  const labels = ascii.split('.');
  return labels.length >= 2 && labels.every((label) => LABEL.test(label)) ? ascii : null;
}

/**
 * `local@domain` lower-cased (the local part also in Unicode NFC) with an ASCII domain, or null
 * when it is not a routable address. The local part may be a dot-atom, UTF-8 included (SMTPUTF8),
 * or a quoted string; a quoted one that needs no quotes is written without them (`"info"@x` is
 * `info@x`), and one that does keeps them, with only `"` and `\` escaped.
 */
export function normalizeAddress(address: string): string | null {
  const at = address.lastIndexOf('@');
  if (at <= 0) return null;
  const rawLocal = address.slice(0, at);
  if (Buffer.byteLength(rawLocal) > MAX_ADDRESS_OCTETS) return null;
  const local = normalizeLocalPart(rawLocal);
  const domain = normalizeDomain(address.slice(at + 1));
  if (!domain || local === null) return null;
  const normalized = `${local}@${domain}`;
  return Buffer.byteLength(normalized) <= MAX_ADDRESS_OCTETS ? normalized : null;
}

function normalizeLocalPart(local: string): string | null {
  if (DOT_ATOM.test(local)) return local.toLowerCase().normalize('NFC');
  const quoted = QUOTED_LOCAL.exec(local);
  if (!quoted) return null;
  const content = (quoted[1] as string).replace(/\\(.)/gu, '$1').toLowerCase().normalize('NFC');
  return DOT_ATOM.test(content) ? content : `"${content.replace(/["\\]/g, '\\$&')}"`;
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
  // `*` is legal in a local part, but a route with one would read as a wildcard it is not; a
  // route is written without quotes (a recipient's quoted local part still finds it, unquoted).
  return trimmed.includes('*') || trimmed.includes('"') ? null : normalizeAddress(trimmed);
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
  const plus = local.startsWith('"') ? -1 : local.indexOf('+');
  if (plus > 0) candidates.push(`${local.slice(0, plus)}@${domain}`);
  candidates.push(`*@${domain}`);
  return candidates;
}
