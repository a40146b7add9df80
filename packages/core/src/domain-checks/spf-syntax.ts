import { isIPv6 } from 'node:net';

/**
 * The syntax of an SPF record (RFC 7208 §12). A receiver meeting a syntax error anywhere in a
 * record it evaluates answers permerror, whatever comes before it (§4.6), so this is checked
 * on every record the evaluation reads, not only where the evaluator happens to stop.
 */

const MECHANISMS = new Set(['all', 'include', 'a', 'mx', 'ptr', 'ip4', 'ip6', 'exists']);
const MODIFIER = /^([A-Za-z][A-Za-z0-9\-_.]*)=(.*)$/s;
const DIRECTIVE = /^([+\-?~]?)([A-Za-z0-9]+)(.*)$/s;
// qnum: 0-255 without leading zeros.
const QNUM = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9][0-9]|[0-9])';
const IP4 = new RegExp(`^${QNUM}\\.${QNUM}\\.${QNUM}\\.${QNUM}$`);
// The dual-cidr-length of a: and mx: (`/24`, `//64`, `/24//64`), taken off the end of the domain-spec.
const DUAL_CIDR = /^(.*?)(\/[0-9]+)?(\/\/[0-9]+)?$/s;
const MACRO_EXPAND = /^%(?:\{[slodiphcrtv][0-9]*r?[.\-+,/_=]*\}|[%_-])/i;
const TOPLABEL = /^(?:[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*|[A-Za-z0-9]+-[A-Za-z0-9-]*[A-Za-z0-9])$/;

/** The first syntax error of an SPF record, or null when it is well formed. */
export function spfSyntaxError(record: string): string | null {
  const [version, ...terms] = record.split(' ');
  if ((version ?? '').toLowerCase() !== 'v=spf1') return `the record does not start with "v=spf1 "`;
  const modifiers = new Map<string, number>();
  for (const term of terms) {
    if (term === '') continue; // runs of spaces, and trailing ones
    const problem = termError(term, modifiers);
    if (problem) return `"${term}": ${problem}`;
  }
  for (const name of ['redirect', 'exp']) {
    if ((modifiers.get(name) ?? 0) > 1) return `${name}= appears more than once`;
  }
  return null;
}

function termError(term: string, modifiers: Map<string, number>): string | null {
  const modifier = MODIFIER.exec(term);
  if (modifier) {
    const name = (modifier[1] ?? '').toLowerCase();
    const value = modifier[2] ?? '';
    modifiers.set(name, (modifiers.get(name) ?? 0) + 1);
    if (name === 'redirect' || name === 'exp') return domainSpecError(value);
    return macroStringError(value);
  }
  const directive = DIRECTIVE.exec(term);
  const mechanism = (directive?.[2] ?? '').toLowerCase();
  if (!directive || !MECHANISMS.has(mechanism)) return 'not a known mechanism or a modifier (name=value)';
  const rest = directive[3] ?? '';
  switch (mechanism) {
    case 'all':
      return rest === '' ? null : 'all takes no value';
    case 'include':
    case 'exists':
      return rest.startsWith(':') ? domainSpecError(rest.slice(1)) : `${mechanism} needs ":domain"`;
    case 'ptr':
      if (rest === '') return null;
      return rest.startsWith(':') ? domainSpecError(rest.slice(1)) : 'ptr takes ":domain" only';
    case 'a':
    case 'mx': {
      const [, spec = '', cidr4, cidr6] = DUAL_CIDR.exec(rest) ?? [];
      if (cidr4 && !prefixOk(cidr4.slice(1), 32)) return 'the IPv4 prefix length is not 0-32';
      if (cidr6 && !prefixOk(cidr6.slice(2), 128)) return 'the IPv6 prefix length is not 0-128';
      if (spec === '') return null;
      return spec.startsWith(':') ? domainSpecError(spec.slice(1)) : `${mechanism} takes ":domain" and prefix lengths only`;
    }
    case 'ip4': {
      const [address = '', ...lengths] = rest.replace(/^:/, '').split('/');
      if (!rest.startsWith(':') || !IP4.test(address)) return 'not an IPv4 address';
      if (lengths.length > 1 || (lengths.length === 1 && !prefixOk(lengths[0] ?? '', 32))) return 'the prefix length is not 0-32';
      return null;
    }
    default: {
      const [address = '', ...lengths] = rest.replace(/^:/, '').split('/');
      if (!rest.startsWith(':') || !isIPv6(address)) return 'not an IPv6 address';
      if (lengths.length > 1 || (lengths.length === 1 && !prefixOk(lengths[0] ?? '', 128))) return 'the prefix length is not 0-128';
      return null;
    }
  }
}

/** domain-spec = macro-string domain-end, domain-end = ( "." toplabel [ "." ] ) / macro-expand. */
function domainSpecError(spec: string): string | null {
  const macros = readMacroString(spec);
  if (typeof macros === 'string') return macros;
  if (spec === '') return 'the domain is empty';
  if (macros.endsWithExpand) return null;
  const labels = spec.replace(/\.$/, '').split('.');
  if (labels.length < 2 || !TOPLABEL.test(labels[labels.length - 1] ?? '')) return 'not a fully qualified domain name';
  return null;
}

function macroStringError(text: string): string | null {
  const macros = readMacroString(text);
  return typeof macros === 'string' ? macros : null;
}

/** macro-string = *( macro-expand / macro-literal ), macro-literal = %x21-24 / %x26-7E: whether it ends with a macro-expand, or what is wrong. */
function readMacroString(text: string): { endsWithExpand: boolean } | string {
  let endsWithExpand = false;
  for (let at = 0; at < text.length; ) {
    if (text[at] === '%') {
      const expand = MACRO_EXPAND.exec(text.slice(at));
      if (!expand) return 'a "%" that does not start a macro';
      at += expand[0].length;
      endsWithExpand = true;
      continue;
    }
    const code = text.charCodeAt(at);
    if (code < 0x21 || code > 0x7e) return 'a character SPF does not allow';
    at += 1;
    endsWithExpand = false;
  }
  return { endsWithExpand };
}

/** A prefix length in decimal without leading zeros, at most `max`. */
function prefixOk(digits: string, max: number): boolean {
  return /^(0|[1-9][0-9]*)$/.test(digits) && Number(digits) <= max;
}
