import { dkimpyArcSeal, dkimpyResign, dkimpySign, type PythonSignRequest } from './authheaders';
import { FROM_IP, keys, LIST_IP, STRANGER_IP } from './authentication-zone';

/** One message and the SMTP transaction it arrived in, judged by both implementations. */
export interface AuthenticationCase {
  name: string;
  message: Buffer;
  ip: string;
  helo: string;
  /** '' for the null sender `<>`. */
  mailFrom: string;
}

const SIGNED_HEADERS = ['from', 'to', 'subject', 'date', 'message-id'];

/** `fromField`: the whole From field value instead of Ada at `from`; null for a message without From. */
function message(name: string, from = 'ada@sender.test', body = 'Hello there.\r\n\r\nAda\r\n', fromField?: string | null): string {
  const header = [
    ...(fromField === null ? [] : [`From: ${fromField ?? `Ada Lovelace <${from}>`}`]),
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
  /** rsa-sha1 instead of the key's own algorithm (RSA keys only). */
  sha1?: boolean;
  /** A change to the signature field dkimpy wrote, after which dkimpy makes b= anew (RSA keys only): see dkimpyResign. */
  edit?: (field: string) => string;
}

interface Spec {
  name: string;
  from?: string;
  /** The whole From field value, or null for none (see message()). */
  fromField?: string | null;
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

const HOUR = 3_600; // seconds, as t= and x= count
const DAY = 24 * HOUR;
/** An edit setting t= `t` seconds from now, and adding x= `x` seconds from now when given (dkimpy writes no x=). */
const timed = (t: number, x?: number) => (field: string) => {
  const now = Math.floor(Date.now() / 1000);
  return field.replace(/t=\d+;/, `t=${now + t};${x === undefined ? '' : ` x=${now + x};`}`);
};
/** A signature by r2048 whose field is edited (and b= made anew), judged from a stranger's address so DMARC rests on it. */
const edited = (name: string, edit: (field: string) => string, canonicalize: Signing['canonicalize'] = 'relaxed/relaxed'): Spec => ({ name, sign: [{ ...r(canonicalize), edit }], ip: STRANGER_IP });
/** FWS (RFC 6376 §3.2) around `=` and before `;` of every tag dkimpy wrote after `; ` but b=, and a fold after v='s `=`. */
const spaced = (field: string) => field.replace(/; (?!b=)([a-z]+)=/g, ' ;\t$1 =  ').replace('v=1;', 'v =\r\n\t1 ;');
/** An SPF scenario: MAIL FROM `mailFrom` from `ip`. */
const spf = (name: string, mailFrom: string, ip = FROM_IP): Spec => ({ name, mailFrom, ip });

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
  { name: 'rsa-sha1-signature', sign: [{ ...r('relaxed/relaxed'), sha1: true }], ip: STRANGER_IP },
  { name: 'rsa-sha1-and-rsa-sha256', sign: [{ ...r('relaxed/relaxed'), sha1: true }, r('relaxed/relaxed')], ip: STRANGER_IP },
  edited('dkim-expired', timed(-2 * DAY, -DAY)),
  edited('dkim-expiry-ahead', timed(0, DAY)),
  edited('dkim-timestamp-in-future', timed(2 * DAY)),
  edited('dkim-expiry-before-timestamp', timed(HOUR, HOUR / 2)),
  edited('dkim-h-without-from', (f) => f.replace(/h=[^;]*;/, 'h=to : subject : date : message-id;')),
  edited('dkim-i-outside-d', (f) => f.replace('i=@sender.test', 'i=@other.test')),
  edited('dkim-i-suffix-not-subdomain', (f) => f.replace('i=@sender.test', 'i=@notsender.test')),
  edited('dkim-i-subdomain-of-d', (f) => f.replace('i=@sender.test', 'i=ada@mail.sender.test')),
  edited('dkim-fws-around-equals-relaxed', spaced),
  edited('dkim-fws-around-equals-simple', spaced, 'simple/simple'),
  edited('dkim-fws-before-b-equals', (f) => f.replace(/;(\s+)b=/, ';$1b =\t')),
  { name: 'from-missing', fromField: null, sign: [r('relaxed/relaxed')] },
  { name: 'from-two-addresses-same-domain', fromField: 'Ada <ada@sender.test>, Grace <grace@sender.test>', sign: [r('relaxed/relaxed')], ip: STRANGER_IP },
  { name: 'from-two-addresses-one-unaligned', fromField: 'Ada <ada@sender.test>, Bob <bob@other.test>', sign: [r('relaxed/relaxed')] },
  {
    name: 'from-two-addresses-third-party-signed',
    fromField: 'Ada <ada@sender.test>, Mallory <mallory@other.test>',
    sign: [r('relaxed/relaxed', 'other')],
    ip: STRANGER_IP,
    mailFrom: 'bounce@other.test',
  },
  {
    name: 'from-field-prepended-to-third-party-signature',
    from: 'mallory@other.test',
    sign: [r('relaxed/relaxed', 'other')],
    after: (m) => m.replace(/^From: /m, 'From: Ada Lovelace <ada@sender.test>\r\nFrom: '),
    ip: STRANGER_IP,
    mailFrom: 'bounce@other.test',
  },
  spf('spf-exists-macros-l-ir-v-d2', 'bounce-ada@exmacro.test', STRANGER_IP),
  spf('spf-exists-macros-no-match', 'bounce-ada@exmacro.test'),
  spf('spf-exists-macros-h-o', 'bounce@hmacro.test'),
  spf('spf-ptr-without-ptr-record', 'bounce@ptr.test'),
  spf('spf-ptr-then-ip4', 'bounce@ptrthenip.test'),
  spf('spf-exp-does-not-change-result', 'bounce@exp.test'),
  spf('spf-exp-name-missing', 'bounce@expmissing.test'),
  spf('spf-two-version-strings-one-record', 'bounce@twoversions.test'),
  spf('spf-spf10-is-not-a-record', 'bounce@spf10.test'),
  spf('spf-record-split-strings', 'bounce@split.test'),
  spf('spf-unknown-mechanism', 'bounce@unknownmech.test'),
  spf('spf-unknown-modifier', 'bounce@unknownmod.test'),
  spf('spf-all-in-middle', 'bounce@allmiddle.test'),
  spf('spf-all-and-redirect', 'bounce@allredirect.test'),
];

const ARC_CASES = ['arc-one-hop', 'arc-one-hop-body-altered', 'arc-two-hops', 'arc-two-hops-cv-fail', 'arc-two-hops-first-ams-modified'] as const;

/** The names of the cases buildCases() makes, in order, known before they are built. */
export const CASE_NAMES: readonly string[] = [...SPECS.map((spec) => spec.name), ...ARC_CASES];

/** Every scenario, signed (DKIM by dkimpy) and sealed (ARC by dkimpy) as its name says. */
export async function buildCases(): Promise<AuthenticationCase[]> {
  const bases = SPECS.map((spec) => message(spec.name, spec.from, spec.body, spec.fromField));
  const signings = SPECS.flatMap((spec, i) => (spec.sign ?? []).map((s) => ({ s, base: bases[i] as string })));
  const signatures = await dkimpySign(
    signings.map(({ s, base }) => {
      const [selector, domain] = SELECTORS[s.key];
      return {
        message: Buffer.from(base),
        selector: s.selector ?? selector,
        domain: s.domain ?? domain,
        key: keys[s.key].signing,
        algorithm: s.sha1 ? 'rsa-sha1' : keys[s.key].algorithm,
        canonicalize: s.canonicalize ?? 'relaxed/relaxed',
        headers: s.headers ?? SIGNED_HEADERS,
        length: s.length,
      };
    }),
  );
  // Each signature covers the base message alone, so an edited one is made anew over its field and the base.
  const edits = signings.flatMap(({ s, base }, j) => (s.edit ? [{ j, message: Buffer.from(s.edit(signatures[j] as string) + base), key: keys[s.key].signing }] : []));
  const resigned = await dkimpyResign(edits);
  edits.forEach(({ j }, k) => {
    signatures[j] = resigned[k] as string;
  });
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
