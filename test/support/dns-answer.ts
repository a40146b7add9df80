import { isIPv4, isIPv6 } from 'node:net';
import type * as dnsPacket from 'dns-packet';

/** The records of one name. A name listed with no record of the asked type answers NODATA. */
export interface DnsRecords {
  MX?: Array<{ preference: number; exchange: string }>;
  A?: string[];
  AAAA?: string[];
  /** Each entry is one TXT record; an array entry is one record made of several strings. */
  TXT?: Array<string | string[]>;
  /** Host names the name (an `in-addr.arpa`/`ip6.arpa` name, see {@link ptrName}) points back to. */
  PTR?: string[];
  /**
   * An alias: every other type asked at this name is answered with this CNAME, followed by
   * the target's records (the whole chain, as a recursive resolver answers, RFC 1034 §4.3.2).
   */
  CNAME?: string;
}

/** Names (case-insensitive, no trailing dot) and their records. */
export type DnsZone = Record<string, DnsRecords>;

/** An error answer given for a name whatever the zone says. */
export type DnsErrorRcode = 'SERVFAIL' | 'NXDOMAIN' | 'REFUSED';

// RCODE values (RFC 1035 §4.1.1), carried in the low 4 bits of the flags.
export const RCODES = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;
const TTL_SECONDS = 60;
// Aliases followed before the chain is answered as it stands (a loop, or a chain no resolver follows).
const MAX_CNAME_HOPS = 8;

export const normalize = (name: string) => name.toLowerCase().replace(/\.$/, '');

/** The reverse-lookup name of an address: `10.2.0.192.in-addr.arpa`, or nibbles under `ip6.arpa` (RFC 3596 §2.5). */
export function ptrName(address: string): string {
  if (isIPv4(address)) return `${address.split('.').reverse().join('.')}.in-addr.arpa`;
  if (!isIPv6(address)) throw new Error(`not an IP address: ${address}`);
  const [head = '', tail = ''] = address.split('::');
  const groups = (part: string) => (part ? part.split(':') : []);
  const missing = 8 - groups(head).length - groups(tail).length;
  const full = [...groups(head), ...Array<string>(address.includes('::') ? missing : 0).fill('0'), ...groups(tail)];
  return `${full.map((group) => group.padStart(4, '0')).join('').split('').reverse().join('.')}.ip6.arpa`;
}

/**
 * The answer of a zone to one question: the records of the asked type, after any CNAME chain
 * (each alias in the answer section first), and the rcode: the configured error of the first
 * name on the way that has one, NXDOMAIN when the last name is not in the zone, else NOERROR.
 */
export function answerFrom(zone: ReadonlyMap<string, DnsRecords>, errors: ReadonlyMap<string, DnsErrorRcode>, question: dnsPacket.Question): { rcode: number; answers: dnsPacket.Answer[] } {
  const answers: dnsPacket.Answer[] = [];
  let owner = question.name.replace(/\.$/, '');
  for (let hop = 0; ; hop += 1) {
    const error = errors.get(normalize(owner));
    if (error) return { rcode: RCODES[error], answers };
    const records = zone.get(normalize(owner));
    if (!records) return { rcode: RCODES.NXDOMAIN, answers };
    const base = { name: owner, ttl: TTL_SECONDS, class: 'IN' as const };
    if (records.CNAME !== undefined && question.type !== 'CNAME') {
      answers.push({ ...base, type: 'CNAME', data: records.CNAME });
      if (hop >= MAX_CNAME_HOPS) return { rcode: RCODES.NOERROR, answers };
      owner = records.CNAME.replace(/\.$/, '');
      continue;
    }
    answers.push(...recordsOfType(base, question.type, records));
    return { rcode: RCODES.NOERROR, answers };
  }
}

function recordsOfType(base: { name: string; ttl: number; class: 'IN' }, type: string, records: DnsRecords): dnsPacket.Answer[] {
  switch (type) {
    case 'MX':
      return (records.MX ?? []).map((data) => ({ ...base, type: 'MX' as const, data }));
    case 'A':
      return (records.A ?? []).map((data) => ({ ...base, type: 'A' as const, data }));
    case 'AAAA':
      return (records.AAAA ?? []).map((data) => ({ ...base, type: 'AAAA' as const, data }));
    case 'TXT':
      return (records.TXT ?? []).map((data) => ({ ...base, type: 'TXT' as const, data }));
    case 'PTR':
      return (records.PTR ?? []).map((data) => ({ ...base, type: 'PTR' as const, data }));
    case 'CNAME':
      return records.CNAME === undefined ? [] : [{ ...base, type: 'CNAME' as const, data: records.CNAME }];
    default:
      return [];
  }
}
