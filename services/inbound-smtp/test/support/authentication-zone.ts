import { generateKeyPairSync } from 'node:crypto';
import type { DnsZone } from '../../../../test/support/dns-server';

/**
 * The keys and DNS of the authentication differential (authentication-cases.ts): every name
 * either side may ask about, one domain (or selector) per thing a scenario probes.
 */

export interface Key {
  /** What dkimpy signs with: PKCS#1 PEM for RSA, the base64 32-byte seed for ed25519. */
  signing: string;
  /** The `p=` of its key record. */
  publicKey: string;
  algorithm: 'rsa-sha256' | 'ed25519-sha256';
  k: 'rsa' | 'ed25519';
}

function rsaKey(bits: number): Key {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: bits });
  return {
    signing: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    publicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    algorithm: 'rsa-sha256',
    k: 'rsa',
  };
}

function ed25519Key(): Key {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  // RFC 8463 §4: the key record holds the raw 32-byte public key; PKCS#8 and SPKI end with the raw keys.
  const raw = (key: Buffer) => key.subarray(-32).toString('base64');
  return { signing: raw(privateKey.export({ type: 'pkcs8', format: 'der' })), publicKey: raw(publicKey.export({ type: 'spki', format: 'der' })), algorithm: 'ed25519-sha256', k: 'ed25519' };
}

export const keys = { r2048: rsaKey(2048), r1024: rsaKey(1024), ed: ed25519Key(), other: rsaKey(2048), arc: rsaKey(2048), arc2: rsaKey(2048) };

/** A TXT record split into strings of at most 255 bytes (RFC 1035 §3.3.14). */
const txt = (value: string): string[] => value.match(/.{1,255}/g) ?? [''];
const keyRecord = (key: Key, extra = '') => txt(`v=DKIM1; k=${key.k};${extra} p=${key.publicKey}`);

export const FROM_IP = '192.0.2.10';
export const LIST_IP = '203.0.113.5';
export const STRANGER_IP = '198.51.100.7';

/** Every name either side may ask about. Both sides are given exactly this zone. */
export const zone: DnsZone = {
  'sender.test': { TXT: [`v=spf1 ip4:${FROM_IP} -all`], MX: [{ preference: 10, exchange: 'mx.sender.test' }] },
  'mx.sender.test': { A: ['192.0.2.11'] },
  'mail.sender.test': { TXT: [`v=spf1 ip4:${FROM_IP} -all`], A: ['192.0.2.12'] },
  '_dmarc.sender.test': { TXT: ['v=DMARC1; p=reject'] },
  'r2048._domainkey.sender.test': { TXT: [keyRecord(keys.r2048)] },
  'r1024._domainkey.sender.test': { TXT: [keyRecord(keys.r1024)] },
  'ed._domainkey.sender.test': { TXT: [keyRecord(keys.ed)] },
  'testing._domainkey.sender.test': { TXT: [keyRecord(keys.r2048, ' t=y;')] },
  'sha256._domainkey.sender.test': { TXT: [keyRecord(keys.r2048, ' h=sha256;')] },
  'sha1only._domainkey.sender.test': { TXT: [keyRecord(keys.r2048, ' h=sha1;')] },
  'revoked._domainkey.sender.test': { TXT: ['v=DKIM1; k=rsa; p='] },
  'other.test': { TXT: ['v=spf1 -all'] },
  'o1._domainkey.other.test': { TXT: [keyRecord(keys.other)] },
  '_dmarc.other.test': { TXT: ['v=DMARC1; p=none'] },
  'strict.test': { TXT: [`v=spf1 ip4:${FROM_IP} -all`] },
  'mail.strict.test': { TXT: [`v=spf1 ip4:${FROM_IP} -all`] },
  'r2048._domainkey.strict.test': { TXT: [keyRecord(keys.r2048)] },
  '_dmarc.strict.test': { TXT: ['v=DMARC1; p=reject; adkim=s; aspf=s'] },
  'sp.test': { TXT: [`v=spf1 ip4:${FROM_IP} -all`] },
  'mail.sp.test': { TXT: [`v=spf1 ip4:${FROM_IP} -all`] },
  '_dmarc.sp.test': { TXT: ['v=DMARC1; p=reject; sp=quarantine'] },
  'quarantine.test': { TXT: [`v=spf1 ip4:${FROM_IP} -all`] },
  '_dmarc.quarantine.test': { TXT: ['v=DMARC1; p=quarantine; pct=20'] },
  'own.sender.test': { TXT: [`v=spf1 ip4:${FROM_IP} -all`] },
  '_dmarc.own.sender.test': { TXT: ['v=DMARC1; p=none'] },
  'nodmarc.test': { TXT: [`v=spf1 ip4:${FROM_IP} -all`] },
  // SPF mechanisms (RFC 7208 §5), one domain each.
  'include.test': { TXT: ['v=spf1 include:_spf.provider.test -all'] },
  '_spf.provider.test': { TXT: ['v=spf1 ip4:192.0.2.0/24 ip6:2001:db8:1::/48 -all'] },
  'redirect.test': { TXT: ['v=spf1 redirect=_spf.provider.test'] },
  'a.test': { TXT: ['v=spf1 a a:hosts.a.test/24 -all'], A: ['198.51.100.20'] },
  'hosts.a.test': { A: ['203.0.113.77'] },
  'mx.test': { TXT: ['v=spf1 mx -all'], MX: [{ preference: 10, exchange: 'mx1.mx.test' }, { preference: 20, exchange: 'mx2.mx.test' }] },
  'mx1.mx.test': { A: ['198.51.100.31'] },
  'mx2.mx.test': { A: ['198.51.100.32'], AAAA: ['2001:db8:2::32'] },
  'ip6.test': { TXT: ['v=spf1 ip6:2001:db8:3::/64 -all'] },
  'softfail.test': { TXT: ['v=spf1 ip4:192.0.2.99 ~all'] },
  'neutral.test': { TXT: ['v=spf1 ip4:192.0.2.99 ?all'] },
  'macro.test': { TXT: ['v=spf1 exists:%{i}.allow.%{d} -all'] },
  [`${STRANGER_IP}.allow.macro.test`]: { A: ['127.0.0.2'] },
  'rmacro.test': { TXT: ['v=spf1 exists:%{ir}.%{l}._spf.%{d2} -all'] },
  [`${STRANGER_IP.split('.').reverse().join('.')}.bounce._spf.rmacro.test`]: { A: ['127.0.0.2'] },
  'toomany.test': { TXT: [`v=spf1 ${Array.from({ length: 11 }, (_, i) => `a:h${i}.toomany.test`).join(' ')} -all`] },
  ...Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`h${i}.toomany.test`, { A: [`192.0.2.${200 + i}`] }])),
  'void.test': { TXT: ['v=spf1 a:v1.void.test a:v2.void.test a:v3.void.test ip4:192.0.2.0/24 -all'] },
  'badsyntax.test': { TXT: ['v=spf1 ip4:192.0.2.300 -all'] },
  'twospf.test': { TXT: ['v=spf1 -all', `v=spf1 ip4:${FROM_IP} -all`] },
  'helo.test': { TXT: [] },
  'mx.helo.test': { TXT: [`v=spf1 ip4:${FROM_IP} -all`] },
  // More of RFC 7208: macros in exists: (§7), ptr (§5.5), exp= (§6.2), record selection and
  // concatenation (§4.5, §3.3), unknown terms (§4.6), all before other mechanisms (§5.1).
  'exmacro.test': { TXT: ['v=spf1 exists:%{l1r-}.%{ir}.%{v}.x.%{d2} -all'] },
  [`bounce.${STRANGER_IP.split('.').reverse().join('.')}.in-addr.x.exmacro.test`]: { A: ['127.0.0.2'] },
  'hmacro.test': { TXT: ['v=spf1 exists:%{h}._h.%{o} -all'] },
  'mx.sender.test._h.hmacro.test': { A: ['127.0.0.2'] },
  'ptr.test': { TXT: ['v=spf1 ptr -all'] },
  'ptrthenip.test': { TXT: [`v=spf1 ptr:sender.test ip4:${FROM_IP} -all`] },
  'exp.test': { TXT: ['v=spf1 ip4:192.0.2.99 -all exp=why.exp.test'] },
  'why.exp.test': { TXT: ["%{i} is not one of %{d}'s senders"] },
  'expmissing.test': { TXT: ['v=spf1 -all exp=nowhere.expmissing.test'] },
  'twoversions.test': { TXT: [[`v=spf1 ip4:${FROM_IP} `, 'v=spf1 -all']] },
  'spf10.test': { TXT: ['v=spf10 -all', `v=spf1 ip4:${FROM_IP} -all`] },
  'split.test': { TXT: [['v=spf1 ip4:192.0', '.2.10 -', 'all']] },
  'unknownmech.test': { TXT: [`v=spf1 ip4:${FROM_IP} foo:bar.test -all`] },
  'unknownmod.test': { TXT: [`v=spf1 ip4:${FROM_IP} -all foo=bar`] },
  'allmiddle.test': { TXT: [`v=spf1 ip4:192.0.2.99 ~all ip4:${FROM_IP} -all`] },
  'allredirect.test': { TXT: ['v=spf1 ?all redirect=_spf.provider.test'] },
  // ARC (RFC 8617): a mailing list and a forwarder after it.
  'list.test': { TXT: [`v=spf1 ip4:${LIST_IP} -all`] },
  'arc._domainkey.list.test': { TXT: [keyRecord(keys.arc)] },
  'fwd.test': { TXT: [`v=spf1 ip4:${LIST_IP} -all`] },
  'arc._domainkey.fwd.test': { TXT: [keyRecord(keys.arc2)] },
};
