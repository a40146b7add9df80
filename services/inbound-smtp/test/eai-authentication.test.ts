import { generateKeyPairSync } from 'node:crypto';
import { type DnsZone, DnsServer } from '../../../test/support/dns-server';
import { type AllowedDisagreement, type Difference, testAllowedDisagreements } from '../../../test/support/allowed-disagreements';
import { type AuthenticationVerdicts, authenticateMessage } from '../src/processing';
import { dkimpySign, type PythonVerdicts, pythonAuthenticate } from './support/authheaders';

/**
 * Internationalized mail (RFC 6532 raw UTF-8 headers, U-label domains) through inbound
 * authentication, against Debian's authheaders with dkimpy and pyspf: signatures made by dkimpy
 * over raw UTF-8 header fields with d= as an A-label (RFC 8616 §4), DMARC for a From domain
 * written in U-labels whose records are published, as DNS holds every name, under its A-labels
 * (RFC 8616 §5). Our side must name every domain in A-labels, as SPF and DKIM name theirs, and
 * must read a U-label as UTS #46 does (NFC, lower case), so a From domain a reader sees as
 * bücher.example is judged by bücher.example's policy however its letters were composed.
 */

const IP = '192.0.2.10';
const STRANGER_IP = '198.51.100.7';
const BUECHER = 'xn--bcher-kva.example'; // bücher.example
const OTHER = 'xn--mller-kva.example'; // müller.example

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const KEY = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const KEY_RECORD = `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;
const txt = (value: string): string[] => value.match(/.{1,255}/g) ?? [''];

const ZONE: DnsZone = {
  [BUECHER]: { TXT: [`v=spf1 ip4:${IP} -all`] },
  [`_dmarc.${BUECHER}`]: { TXT: ['v=DMARC1; p=reject; adkim=s; aspf=s'] },
  [`s1._domainkey.${BUECHER}`]: { TXT: [txt(KEY_RECORD)] },
  [OTHER]: { TXT: [`v=spf1 ip4:${IP} -all`] },
  [`_dmarc.${OTHER}`]: { TXT: ['v=DMARC1; p=quarantine; adkim=s; aspf=s'] },
  [`s1._domainkey.${OTHER}`]: { TXT: [txt(KEY_RECORD)] },
};

interface Case {
  name: string;
  from: string;
  mailFrom: string;
  ip: string;
  /** The domains dkimpy signs for (d=), each with selector s1; none when unsigned. */
  signers: string[];
}

const CASES: Case[] = [
  { name: 'u-label-from-signed-a-label', from: 'Jürgen Müller <jürgen@bücher.example>', mailFrom: `jürgen@${BUECHER}`, ip: IP, signers: [BUECHER] },
  { name: 'u-label-from-spf-only', from: 'jürgen@bücher.example', mailFrom: 'jürgen@bücher.example', ip: IP, signers: [] },
  { name: 'u-label-from-unsigned-stranger', from: 'Jürgen <jürgen@bücher.example>', mailFrom: 'x@elsewhere.example', ip: STRANGER_IP, signers: [] },
  // U+0075 U+0308: what a reader sees as bücher.example, in NFD.
  { name: 'nfd-from-domain-unsigned-stranger', from: 'Jürgen <jürgen@bu\u0308cher.example>', mailFrom: 'x@elsewhere.example', ip: STRANGER_IP, signers: [] },
  { name: 'upper-case-u-label-from-unsigned-stranger', from: 'JÜRGEN@BÜCHER.EXAMPLE', mailFrom: 'x@elsewhere.example', ip: STRANGER_IP, signers: [] },
  { name: 'a-label-from-signed', from: `jürgen@${BUECHER}`, mailFrom: 'x@elsewhere.example', ip: STRANGER_IP, signers: [BUECHER] },
  { name: 'two-u-label-authors-both-signed', from: 'jürgen@bücher.example, anna@müller.example', mailFrom: 'x@elsewhere.example', ip: STRANGER_IP, signers: [BUECHER, OTHER] },
  { name: 'two-u-label-authors-one-signed', from: 'jürgen@bücher.example, anna@müller.example', mailFrom: 'x@elsewhere.example', ip: STRANGER_IP, signers: [BUECHER] },
];

function message(c: Case): Buffer {
  return Buffer.from(
    [`From: ${c.from}`, 'To: Zoë <zoë@empfänger.example>', 'Subject: Grüße aus Köln ✓ 注文', `Message-ID: <${c.name}@bücher.example>`, 'MIME-Version: 1.0', 'Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: 8bit', '', 'Hallo, schöne Grüße ✓', ''].join('\r\n'),
  );
}

async function signed(c: Case): Promise<Buffer> {
  let raw = message(c);
  for (const domain of c.signers) {
    const [field] = await dkimpySign([{ message: raw, selector: 's1', domain, key: KEY, algorithm: 'rsa-sha256', canonicalize: 'relaxed/relaxed', headers: ['from', 'to', 'subject', 'message-id'] }]);
    raw = Buffer.concat([Buffer.from(field as string), raw]);
  }
  return raw;
}

/** What is compared: SPF, each signature, DMARC. Domains as both sides name them. */
function compared(v: AuthenticationVerdicts | PythonVerdicts): Record<string, unknown> {
  const out: Record<string, unknown> = { 'spf.result': v.spf.result, 'dmarc.result': v.dmarc.result, 'dmarc.policy': v.dmarc.policy, 'dmarc.domain': v.dmarc.domain };
  v.dkim.forEach((s, i) => {
    out[`dkim[${i}].result`] = s.result;
    out[`dkim[${i}].domain`] = s.domain;
  });
  return out;
}

/**
 * Where authheaders is the outlier. It reads From with email.utils.getaddresses, which (Python
 * 3.11's strict parser) gives no address for a UTF-8 local part such as jürgen@: it looks up no
 * record, so DMARC is `none` for every From of RFC 6532, where RFC 8616 §5 has the record looked
 * up under the domain's A-labels. pyspf looks up a U-label MAIL FROM domain as it is, not in
 * A-labels as RFC 8616 §3 says, and finds no record.
 */
const NO_RFC6532_FROM = 'authheaders finds no address in a From with a UTF-8 local part (email.utils.getaddresses), so no DMARC record: none; RFC 6532 allows it and RFC 8616 §5 looks the record up under the A-labels';
// It names no domain either; we name the A-label the record was looked up under.
const DMARC = ['dmarc.result', 'dmarc.policy', 'dmarc.domain'];
const ALLOWED: AllowedDisagreement[] = [
  { message: 'u-label-from-signed-a-label', fields: DMARC, reason: NO_RFC6532_FROM },
  {
    message: 'u-label-from-spf-only',
    fields: ['spf.result', ...DMARC],
    reason: `pyspf looks the U-label MAIL FROM domain up as written, not in A-labels (RFC 8616 §3), and finds no record; and ${NO_RFC6532_FROM}`,
  },
  { message: 'u-label-from-unsigned-stranger', fields: DMARC, reason: NO_RFC6532_FROM },
  { message: 'nfd-from-domain-unsigned-stranger', fields: DMARC, reason: NO_RFC6532_FROM },
  { message: 'upper-case-u-label-from-unsigned-stranger', fields: DMARC, reason: NO_RFC6532_FROM },
  { message: 'a-label-from-signed', fields: DMARC, reason: NO_RFC6532_FROM },
  { message: 'two-u-label-authors-both-signed', fields: DMARC, reason: NO_RFC6532_FROM },
  { message: 'two-u-label-authors-one-signed', fields: DMARC, reason: NO_RFC6532_FROM },
];

describe('internationalized mail, authenticated by us and by authheaders', () => {
  let dns: DnsServer;
  const ours = new Map<string, AuthenticationVerdicts>();
  const found = new Map<string, Difference[]>();

  beforeAll(async () => {
    // A copy: dns-packet turns the TXT strings it encodes into Buffers in place, which Python would then be sent.
    dns = await new DnsServer({ zone: structuredClone(ZONE) }).start();
    for (const c of CASES) {
      const raw = await signed(c);
      const mine = await authenticateMessage(raw, { remoteAddress: c.ip, helo: 'mx.elsewhere.example', mailFrom: c.mailFrom, mta: 'mx.acme.test', dnsServers: [dns.address] });
      const [theirs] = await pythonAuthenticate([{ message: raw, ip: c.ip, helo: 'mx.elsewhere.example', mailFrom: c.mailFrom, records: ZONE }]);
      ours.set(c.name, mine);
      const a = compared(mine);
      const b = compared(theirs as PythonVerdicts);
      const fields = [...new Set([...Object.keys(a), ...Object.keys(b)])];
      found.set(
        c.name,
        fields.filter((f) => JSON.stringify(a[f]) !== JSON.stringify(b[f])).map((field) => ({ field, ours: a[field], python: b[field] })),
      );
    }
  }, 60_000);
  afterAll(() => dns.stop());

  testAllowedDisagreements(
    CASES.map((c) => c.name),
    ALLOWED,
    found,
    'authenticated',
  );

  test('when the From domain is a U-label, then DMARC is judged and named under its A-labels, as SPF and DKIM are', () => {
    expect(ours.get('u-label-from-signed-a-label')).toMatchObject({
      spf: { result: 'pass', domain: BUECHER },
      dkim: [{ result: 'pass', domain: BUECHER, selector: 's1', aligned: true }],
      dmarc: { result: 'pass', policy: 'reject', domain: BUECHER },
    });
    expect(ours.get('u-label-from-unsigned-stranger')?.dmarc).toEqual({ result: 'fail', policy: 'reject', domain: BUECHER });
  });

  test('when the From domain is the same name in NFD or upper case, then its p=reject still applies (UTS #46 maps both to one A-label)', () => {
    expect(ours.get('nfd-from-domain-unsigned-stranger')?.dmarc).toEqual({ result: 'fail', policy: 'reject', domain: BUECHER });
    expect(ours.get('upper-case-u-label-from-unsigned-stranger')?.dmarc).toEqual({ result: 'fail', policy: 'reject', domain: BUECHER });
  });

  test('when two U-label authors ask for strict alignment, then each A-label d= aligns with its own author (RFC 7489 §6.6.1)', () => {
    expect(ours.get('two-u-label-authors-both-signed')?.dmarc).toEqual({ result: 'pass', policy: 'reject', domain: BUECHER });
    expect(ours.get('two-u-label-authors-one-signed')?.dmarc).toEqual({ result: 'fail', policy: 'quarantine', domain: OTHER });
  });
});
