import { generateKeyPairSync } from 'node:crypto';
import type { DnsZone } from '../../../../test/support/dns-server';
import { dkimpyArcSeal, dkimpySign, type PythonSignRequest } from './authheaders';

/** One message and the SMTP transaction it arrived in, judged by both implementations. */
export interface AuthenticationCase {
  name: string;
  message: Buffer;
  ip: string;
  helo: string;
  /** '' for the null sender `<>`. */
  mailFrom: string;
}

interface Key {
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

const keys = { r2048: rsaKey(2048), r1024: rsaKey(1024), ed: ed25519Key(), other: rsaKey(2048), arc: rsaKey(2048), arc2: rsaKey(2048) };

/** A TXT record split into strings of at most 255 bytes (RFC 1035 §3.3.14). */
const txt = (value: string): string[] => value.match(/.{1,255}/g) ?? [''];
const keyRecord = (key: Key, extra = '') => txt(`v=DKIM1; k=${key.k};${extra} p=${key.publicKey}`);

const FROM_IP = '192.0.2.10';
const LIST_IP = '203.0.113.5';
const STRANGER_IP = '198.51.100.7';

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
  // ARC (RFC 8617): a mailing list and a forwarder after it.
  'list.test': { TXT: [`v=spf1 ip4:${LIST_IP} -all`] },
  'arc._domainkey.list.test': { TXT: [keyRecord(keys.arc)] },
  'fwd.test': { TXT: [`v=spf1 ip4:${LIST_IP} -all`] },
  'arc._domainkey.fwd.test': { TXT: [keyRecord(keys.arc2)] },
};

const SIGNED_HEADERS = ['from', 'to', 'subject', 'date', 'message-id'];

function message(name: string, from = 'ada@sender.test', body = 'Hello there.\r\n\r\nAda\r\n'): string {
  const header = [
    `From: Ada Lovelace <${from}>`,
    'To: inbox@acme.test',
    `Subject: Case ${name}`,
    'Date: Mon, 23 Nov 2026 10:00:00 +0000',
    `Message-ID: <${name}@sender.test>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
  ];
  return `${header.join('\r\n')}\r\n\r\n${body}`;
}

interface Signing {
  key: keyof typeof keys;
  domain?: string;
  selector?: string;
  canonicalize?: PythonSignRequest['canonicalize'];
  headers?: string[];
  length?: boolean;
}

interface Spec {
  name: string;
  from?: string;
  body?: string;
  sign?: Signing[];
  /** Applied to the signed message: what happens to it on the way. */
  after?: (signed: string) => string;
  ip?: string;
  helo?: string;
  mailFrom?: string;
}

const SELECTORS: Record<keyof typeof keys, [string, string]> = {
  r2048: ['r2048', 'sender.test'],
  r1024: ['r1024', 'sender.test'],
  ed: ['ed', 'sender.test'],
  other: ['o1', 'other.test'],
  arc: ['arc', 'list.test'],
  arc2: ['arc', 'fwd.test'],
};

/** A replacer that changes the character after the prefix it matched (a base64 digit), whatever it was. */
const flip = (_: string, prefix: string, char: string) => prefix + (char === 'A' ? 'B' : 'A');

const r = (canonicalize: Signing['canonicalize'], key: Signing['key'] = 'r2048'): Signing => ({ key, canonicalize });

/** The scenarios signed in one dkimpy call; each names what it probes. */
const SPECS: Spec[] = [
  { name: 'unsigned-spf-pass' },
  { name: 'rsa2048-relaxed-relaxed', sign: [r('relaxed/relaxed')] },
  { name: 'rsa2048-simple-simple', sign: [r('simple/simple')] },
  { name: 'rsa2048-relaxed-simple', sign: [r('relaxed/simple')] },
  { name: 'rsa2048-simple-relaxed', sign: [r('simple/relaxed')] },
  { name: 'rsa1024-relaxed-relaxed', sign: [r('relaxed/relaxed', 'r1024')] },
  { name: 'ed25519-relaxed-relaxed', sign: [r('relaxed/relaxed', 'ed')] },
  { name: 'ed25519-simple-simple', sign: [r('simple/simple', 'ed')] },
  { name: 'ed25519-and-rsa', sign: [r('relaxed/relaxed', 'ed'), r('relaxed/relaxed')] },
  { name: 'body-length-appended-relaxed', sign: [{ ...r('relaxed/relaxed'), length: true }], after: (m) => `${m}--\r\nList footer: unsubscribe here\r\n` },
  { name: 'body-length-appended-simple', sign: [{ ...r('simple/simple'), length: true }], after: (m) => `${m}--\r\nList footer\r\n` },
  { name: 'body-length-unchanged', sign: [{ ...r('relaxed/simple'), length: true }] },
  { name: 'oversigned-headers', sign: [{ ...r('relaxed/relaxed'), headers: ['from', 'from', 'subject', 'subject', 'to', 'cc', 'reply-to', 'date'] }] },
  {
    name: 'oversigned-header-added-later',
    sign: [{ ...r('relaxed/relaxed'), headers: ['from', 'from', 'subject', 'subject', 'to', 'date'] }],
    after: (m) => m.replace('\r\n\r\n', '\r\nSubject: Another subject\r\n\r\n'),
  },
  { name: 'unsigned-header-added-later', sign: [r('relaxed/relaxed')], after: (m) => m.replace('\r\n\r\n', '\r\nX-Added: by a relay\r\n\r\n') },
  { name: 'header-altered-after-signing', sign: [r('relaxed/relaxed')], after: (m) => m.replace('Subject: Case', 'Subject: Pay now, case') },
  { name: 'body-altered-after-signing', sign: [r('simple/simple')], after: (m) => m.replace('Hello there.', 'Hello there!') },
  { name: 'one-good-one-bad-signature', sign: [r('relaxed/relaxed'), r('relaxed/relaxed', 'other')], after: (m) => m.replace(/(d=other\.test;[\s\S]*?bh=)(.)/, flip) },
  { name: 'third-party-signature-only', sign: [r('relaxed/relaxed', 'other')], ip: STRANGER_IP },
  { name: 'third-party-and-author-signature', sign: [r('relaxed/relaxed', 'other'), r('relaxed/relaxed')], ip: STRANGER_IP },
  { name: 'subdomain-from-relaxed-alignment', from: 'ada@mail.sender.test', sign: [r('relaxed/relaxed')], ip: STRANGER_IP, mailFrom: 'bounce@mail.sender.test' },
  { name: 'subdomain-from-spf-relaxed-alignment', from: 'ada@mail.sender.test', mailFrom: 'bounce@sender.test' },
  { name: 'subdomain-from-no-alignment-sp', from: 'ada@mail.sender.test', sign: [r('relaxed/relaxed', 'other')], ip: STRANGER_IP, mailFrom: 'bounce@other.test' },
  { name: 'dmarc-sp-for-subdomain', from: 'ada@mail.sp.test', ip: STRANGER_IP, mailFrom: 'bounce@mail.sp.test' },
  { name: 'dmarc-sp-not-for-organizational-domain', from: 'ada@sp.test', ip: STRANGER_IP, mailFrom: 'bounce@sp.test' },
  { name: 'subdomain-own-dmarc-record', from: 'ada@own.sender.test', ip: STRANGER_IP, mailFrom: 'bounce@own.sender.test' },
  { name: 'strict-alignment-subdomain', from: 'ada@mail.strict.test', sign: [{ ...r('relaxed/relaxed'), domain: 'strict.test' }], mailFrom: 'bounce@strict.test' },
  { name: 'strict-alignment-exact', from: 'ada@strict.test', sign: [{ ...r('relaxed/relaxed'), domain: 'strict.test' }], ip: STRANGER_IP, mailFrom: 'bounce@strict.test' },
  { name: 'strict-spf-subdomain-mail-from', from: 'ada@strict.test', mailFrom: 'bounce@mail.strict.test' },
  { name: 'dmarc-quarantine-pct', from: 'ada@quarantine.test', ip: STRANGER_IP, mailFrom: 'bounce@quarantine.test' },
  { name: 'dmarc-none-policy', from: 'ada@other.test', ip: STRANGER_IP, mailFrom: 'bounce@other.test' },
  { name: 'dmarc-no-record', from: 'ada@nodmarc.test', ip: STRANGER_IP, mailFrom: 'bounce@nodmarc.test' },
  { name: 'spf-include-pass', mailFrom: 'bounce@include.test', from: 'ada@include.test' },
  { name: 'spf-include-fail', mailFrom: 'bounce@include.test', ip: STRANGER_IP },
  { name: 'spf-include-ip6', mailFrom: 'bounce@include.test', ip: '2001:db8:1::25' },
  { name: 'spf-redirect-pass', mailFrom: 'bounce@redirect.test' },
  { name: 'spf-redirect-fail', mailFrom: 'bounce@redirect.test', ip: STRANGER_IP },
  { name: 'spf-a-pass', mailFrom: 'bounce@a.test', ip: '198.51.100.20' },
  { name: 'spf-a-cidr-pass', mailFrom: 'bounce@a.test', ip: '203.0.113.9' },
  { name: 'spf-a-fail', mailFrom: 'bounce@a.test' },
  { name: 'spf-mx-pass', mailFrom: 'bounce@mx.test', ip: '198.51.100.32' },
  { name: 'spf-mx-ip6-pass', mailFrom: 'bounce@mx.test', ip: '2001:db8:2::32' },
  { name: 'spf-mx-fail', mailFrom: 'bounce@mx.test' },
  { name: 'spf-ip6-pass', mailFrom: 'bounce@ip6.test', ip: '2001:db8:3::1' },
  { name: 'spf-ip6-fail-ipv4-client', mailFrom: 'bounce@ip6.test' },
  { name: 'spf-softfail', mailFrom: 'bounce@softfail.test' },
  { name: 'spf-neutral', mailFrom: 'bounce@neutral.test' },
  { name: 'spf-macro-i-d', mailFrom: 'bounce@macro.test', ip: STRANGER_IP },
  { name: 'spf-macro-i-d-no-match', mailFrom: 'bounce@macro.test' },
  { name: 'spf-macro-ir-l-d2', mailFrom: 'bounce@rmacro.test', ip: STRANGER_IP },
  { name: 'spf-too-many-lookups', mailFrom: 'bounce@toomany.test', ip: STRANGER_IP },
  { name: 'spf-void-lookup-limit', mailFrom: 'bounce@void.test', ip: STRANGER_IP },
  { name: 'spf-syntax-error', mailFrom: 'bounce@badsyntax.test' },
  { name: 'spf-two-records', mailFrom: 'bounce@twospf.test' },
  { name: 'spf-no-record', mailFrom: 'bounce@helo.test' },
  { name: 'spf-no-domain', mailFrom: 'bounce@nxdomain.test' },
  { name: 'spf-null-sender-helo-pass', mailFrom: '', helo: 'mx.helo.test' },
  { name: 'spf-null-sender-helo-fail', mailFrom: '', helo: 'mx.helo.test', ip: STRANGER_IP },
  {
    name: 'folded-signature-tags',
    sign: [r('relaxed/relaxed')],
    // Relaxed header canonicalization (RFC 6376 §3.4.2) makes any run of FWS one space, so folds where a space was change nothing.
    after: (m) => m.replace(/^DKIM-Signature:[\s\S]*?\r\n(?=[^ \t])/m, (field) => field.replace(/; /g, ';\r\n\t  ').replace(/(b=)([A-Za-z0-9+/=]{10})/g, '$1$2\r\n  ')),
  },
  { name: 'trailing-empty-lines-simple', body: 'Hello.\r\n\r\n\r\n\r\n', sign: [r('simple/simple')] },
  { name: 'trailing-empty-lines-relaxed', body: 'Hello.  \r\n\r\n\r\n', sign: [r('relaxed/relaxed')] },
  { name: 'trailing-empty-lines-added-after', sign: [r('simple/simple'), r('relaxed/relaxed', 'ed')], after: (m) => `${m}\r\n\r\n\r\n` },
  { name: 'no-final-crlf-simple', body: 'Hello, no line end', sign: [r('simple/simple')] },
  { name: 'no-final-crlf-relaxed', body: 'Hello, no line end', sign: [r('relaxed/relaxed')] },
  { name: 'empty-body', body: '', sign: [r('simple/simple'), r('relaxed/relaxed', 'ed')] },
  { name: 'key-testing-mode', sign: [{ ...r('relaxed/relaxed'), selector: 'testing' }] },
  { name: 'key-h-sha256', sign: [{ ...r('relaxed/relaxed'), selector: 'sha256' }] },
  { name: 'key-h-sha1-only', sign: [{ ...r('relaxed/relaxed'), selector: 'sha1only' }], ip: STRANGER_IP },
  { name: 'key-revoked', sign: [{ ...r('relaxed/relaxed'), selector: 'revoked' }], ip: STRANGER_IP },
  { name: 'key-missing', sign: [{ ...r('relaxed/relaxed'), selector: 'nosuchkey' }], ip: STRANGER_IP },
  { name: 'key-type-mismatch', sign: [{ ...r('relaxed/relaxed', 'ed'), selector: 'r2048' }], ip: STRANGER_IP },
];

const ARC_CASES = ['arc-one-hop', 'arc-one-hop-body-altered', 'arc-two-hops', 'arc-two-hops-cv-fail', 'arc-two-hops-first-ams-modified'] as const;

/** The names of the cases buildCases() makes, in order, known before they are built. */
export const CASE_NAMES: readonly string[] = [...SPECS.map((spec) => spec.name), ...ARC_CASES];

/** Every scenario, signed (DKIM by dkimpy) and sealed (ARC by dkimpy) as its name says. */
export async function buildCases(): Promise<AuthenticationCase[]> {
  const bases = SPECS.map((spec) => message(spec.name, spec.from, spec.body));
  const requests = SPECS.flatMap((spec, i) =>
    (spec.sign ?? []).map((s) => {
      const [selector, domain] = SELECTORS[s.key];
      return {
        message: Buffer.from(bases[i] as string),
        selector: s.selector ?? selector,
        domain: s.domain ?? domain,
        key: keys[s.key].signing,
        algorithm: keys[s.key].algorithm,
        canonicalize: s.canonicalize ?? 'relaxed/relaxed',
        headers: s.headers ?? SIGNED_HEADERS,
        length: s.length,
      };
    }),
  );
  const signatures = await dkimpySign(requests);
  let next = 0;
  const cases = SPECS.map((spec, i): AuthenticationCase => {
    const fields = (spec.sign ?? []).map(() => signatures[next++] as string);
    const signed = fields.join('') + (bases[i] as string);
    return {
      name: spec.name,
      message: Buffer.from(spec.after ? spec.after(signed) : signed),
      ip: spec.ip ?? FROM_IP,
      helo: spec.helo ?? 'mx.sender.test',
      mailFrom: spec.mailFrom ?? 'bounce@sender.test',
    };
  });
  return [...cases, ...(await arcCases())];
}

/**
 * A message signed by its author, through a mailing list that tags the subject and seals
 * (ARC, RFC 8617), then optionally a forwarder that seals again; variants break the chain.
 */
async function arcCases(): Promise<AuthenticationCase[]> {
  const original = message('arc');
  const [signature] = await dkimpySign([
    { message: Buffer.from(original), selector: 'r2048', domain: 'sender.test', key: keys.r2048.signing, algorithm: 'rsa-sha256', canonicalize: 'relaxed/relaxed', headers: SIGNED_HEADERS },
  ]);
  const listed = `Authentication-Results: list.test; dkim=pass header.d=sender.test; spf=pass smtp.mailfrom=sender.test; arc=none\r\n${(signature ?? '') + original}`.replace(
    'Subject: Case',
    'Subject: [list] Case',
  );
  const seal = (raw: string, forwarder: 'arc' | 'arc2') =>
    dkimpyArcSeal({ message: Buffer.from(raw), selector: 'arc', domain: SELECTORS[forwarder][1], key: keys[forwarder].signing, srvId: SELECTORS[forwarder][1], headers: SIGNED_HEADERS });
  const hop1 = (await seal(listed, 'arc')) + listed;
  const forward = (cv: string) => `Authentication-Results: fwd.test; arc=${cv} header.oldest-pass=0\r\n${hop1}`;
  const [hop2, hop2Fail] = [forward('pass'), forward('fail')];
  const sealed2 = (await seal(hop2, 'arc2')) + hop2;
  const sealed2Fail = (await seal(hop2Fail, 'arc2')) + hop2Fail;
  const viaList = { ip: LIST_IP, helo: 'mx.list.test', mailFrom: 'list-bounces@list.test' };
  return [
    { name: 'arc-one-hop', message: Buffer.from(hop1), ...viaList },
    { name: 'arc-one-hop-body-altered', message: Buffer.from(hop1.replace('Hello there.', 'Hello there, altered.')), ...viaList },
    { name: 'arc-two-hops', message: Buffer.from(sealed2), ...viaList, mailFrom: 'fwd@fwd.test' },
    { name: 'arc-two-hops-cv-fail', message: Buffer.from(sealed2Fail), ...viaList, mailFrom: 'fwd@fwd.test' },
    { name: 'arc-two-hops-first-ams-modified', message: Buffer.from(sealed2.replace(/(ARC-Message-Signature: i=1;[\s\S]*?bh=)(.)/, flip)), ...viaList, mailFrom: 'fwd@fwd.test' },
  ];
}
