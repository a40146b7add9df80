import { type DNSResolver, authenticate as mailauth } from 'mailauth';
import { asciiDomain } from './ascii-domain';
import { authorDomainsDmarc } from './author-domains-dmarc';
import { type VerifiedSignature, withWhitespaceBeforeB } from './b-tag-whitespace';
import { dkimResult, type MailauthSignature } from './dkim-result';
import { signatureFields, signatureFieldsByB, signatureTags } from './dkim-signature-tags';
import { alignedDmarcResult, dkimAligned, dmarcFromDomain, type MailauthDmarc } from './dmarc-alignment';
import { createDnsLookup, DEFAULT_DNS_BUDGET_MS } from './dns-resolver';
import { fieldLines, fieldName, splitHeaderFields } from './message-headers';
import { spfDnsErrors } from './spf-dns-errors';
import { unreadableSignatures } from './unreadable-signatures';

/** mailauth's results, normalized ("temperr" is written "temperror"). */
export type AuthResult = 'pass' | 'fail' | 'softfail' | 'neutral' | 'none' | 'temperror' | 'permerror' | 'policy' | 'skipped';

/**
 * The verdicts stored with a received email and served in `authentication` (DESIGN §7):
 * SPF on the envelope sender (or HELO), one entry per DKIM signature, DMARC on the From
 * domain, and the ARC chain.
 */
export interface AuthenticationVerdicts {
  spf: { result: AuthResult; domain: string | null };
  dkim: { result: AuthResult; domain: string | null; selector: string | null; aligned: boolean }[];
  dmarc: { result: AuthResult; policy: string | null; domain: string | null };
  arc: { result: AuthResult };
}

export interface AuthenticateOptions {
  remoteAddress: string | null;
  helo: string | null;
  mailFrom: string;
  /** Our host name, as mailauth writes it in Authentication-Results. */
  mta: string;
  dnsServers?: string[];
  dnsTimeoutMs?: number;
  /** DNS time this message may spend in all. */
  dnsBudgetMs?: number;
}

// A bound on mailauth itself, beyond DNS (a key that takes forever, a bug): the budget plus slack.
const SLACK_MS = 5_000;

/** Every verdict `temperror`: what is stored when authentication could not finish. */
export function temperrorVerdicts(): AuthenticationVerdicts {
  return {
    spf: { result: 'temperror', domain: null },
    dkim: [],
    dmarc: { result: 'temperror', policy: null, domain: null },
    arc: { result: 'temperror' },
  };
}

/**
 * SPF, DKIM, DMARC and ARC verdicts for a received message, by mailauth. Never throws and
 * never waits longer than the DNS budget plus a few seconds: when DNS or mailauth fails, the
 * affected verdicts are `temperror`.
 */
export async function authenticateMessage(raw: Buffer, options: AuthenticateOptions): Promise<AuthenticationVerdicts> {
  const budgetMs = options.dnsBudgetMs ?? DEFAULT_DNS_BUDGET_MS;
  const resolver = spfDnsErrors(createDnsLookup({ servers: options.dnsServers, timeoutMs: options.dnsTimeoutMs, budgetMs }));
  let timer: NodeJS.Timeout | undefined;
  const giveUp = new Promise<AuthenticationVerdicts>((resolve) => {
    timer = setTimeout(() => resolve(temperrorVerdicts()), budgetMs + SLACK_MS);
  });
  const view = authenticationView(raw);
  const work = mailauth(view, {
    ip: options.remoteAddress ?? undefined,
    helo: options.helo === null ? undefined : asciiDomain(options.helo),
    sender: asciiSenderDomain(options.mailFrom),
    mta: options.mta,
    resolver: resolver as DNSResolver,
    disableBimi: true,
  })
    .then(async (result) => {
      const signatures = signatureFields(view);
      return withUnreadableSignatures(await toVerdicts(result, signatures, resolver as DNSResolver), signatures);
    })
    .catch(() => temperrorVerdicts());
  try {
    return await Promise.race([work, giveUp]);
  } finally {
    clearTimeout(timer);
  }
}

type MailauthResult = Awaited<ReturnType<typeof mailauth>>;

/**
 * The envelope sender with its domain in A-labels (the local part as it came): SPF looks up and
 * names the domain that way (RFC 8616 §3). mailauth sends no query for a U-label domain, so an
 * SMTPUTF8 sender `zoë@exämple.org` was `none` where `xn--exmple-cua.org`'s record passes it.
 */
function asciiSenderDomain(mailFrom: string): string {
  const at = mailFrom.lastIndexOf('@');
  return at < 0 ? mailFrom : `${mailFrom.slice(0, at + 1)}${asciiDomain(mailFrom.slice(at + 1))}`;
}

async function toVerdicts(result: MailauthResult, signatureFieldList: readonly Buffer[], resolver: DNSResolver): Promise<AuthenticationVerdicts> {
  const spf = result.spf || null;
  const dmarc = (result.dmarc || null) as MailauthDmarc | null;
  const arc = result.arc || null;
  const fields = signatureFieldsByB(signatureFieldList);
  // An unsigned message yields one "none" result naming no domain: that is an empty list here.
  const signatures = (result.dkim?.results ?? [])
    .filter((signature) => signature.signingDomain)
    .map((signature) => {
      const field = fieldOf(fields, signature as unknown as VerifiedSignature);
      const checked = withWhitespaceBeforeB(signature as unknown as VerifiedSignature, field);
      return {
        result: normalize(dkimResult(checked, field ? signatureTags(field) : undefined)),
        domain: signature.signingDomain || null,
        selector: signature.selector || null,
        aligned: Boolean(signature.status.aligned),
      };
    });
  const fromDomain = dmarcFromDomain(dmarc, result.dkim?.headerFrom);
  // The identifiers mailauth gave its DMARC check (mailauth.js), less the passes dkimResult withdrew.
  const identifiers = {
    spfDomain: spf && spf.status.result === 'pass' ? spf.domain || null : null,
    dkim: signatures.filter((s) => s.result === 'pass' && s.domain).map((s) => ({ domain: s.domain as string, relaxedAligned: s.aligned })),
  };
  const severalAuthors = await authorDomainsDmarc(result.dkim?.headerFrom ?? [], { spfDomain: identifiers.spfDomain, dkimDomains: identifiers.dkim.map((s) => s.domain) }, resolver);
  return {
    spf: { result: normalize(spf ? spf.status.result : 'none'), domain: spf ? spf.domain || null : null },
    dkim: signatures.map((s) => ({ ...s, aligned: dkimAligned(dmarc, fromDomain, s.domain, s.aligned) })),
    dmarc: severalAuthors
      ? { ...severalAuthors, result: normalize(severalAuthors.result) }
      : {
          result: normalize(dmarc ? alignedDmarcResult(dmarc, fromDomain, identifiers) : 'none'),
          policy: dmarc ? dmarc.policy || null : null,
          domain: dmarc ? fromDomain : null,
        },
    arc: { result: normalize(arc ? arc.status.result : 'none') },
  };
}

/** The DKIM-Signature field a mailauth result is for, found by its b=. */
function fieldOf(fields: ReadonlyMap<string, Buffer>, signature: MailauthSignature): Buffer | undefined {
  return signature.signature ? fields.get(signature.signature.replace(/\s+/g, '')) : undefined;
}

/**
 * The verdicts with one `permerror` entry for each signature mailauth could not read (see
 * unreadable-signatures.ts): README's "one entry per signature" holds, and a message with only
 * a broken signature does not look unsigned. Such a signature verifies nothing, so it is never
 * `aligned`.
 */
function withUnreadableSignatures(verdicts: AuthenticationVerdicts, signatureFieldList: readonly Buffer[]): AuthenticationVerdicts {
  const unreadable = unreadableSignatures(signatureFieldList, verdicts.dkim.length, MAX_DKIM_SIGNATURES);
  if (unreadable.length === 0) return verdicts;
  return { ...verdicts, dkim: [...verdicts.dkim, ...unreadable.map((s) => ({ result: 'permerror' as const, domain: s.domain, selector: s.selector, aligned: false }))] };
}

function normalize(result: string | undefined): AuthResult {
  if (result === 'temperr') return 'temperror';
  return (result ?? 'none') as AuthResult;
}

// What mailauth is shown. It reads every header line, taking time quadratic in the number of
// folded lines (25,000 lines of one To header: 8 s), and checks every DKIM signature. So:
// at most MAX_DKIM_SIGNATURES signatures are checked, the topmost (most recent), and when the
// header section is over MAX_AUTH_HEADER_LINES lines or MAX_AUTH_HEADER_BYTES, mailauth sees
// only the fields authentication uses: those signatures, ARC sets, From, and the fields the
// signatures name, each within MAX_AUTH_FIELD_BYTES. The body always goes as received.
export const MAX_DKIM_SIGNATURES = 10;
const MAX_AUTH_HEADER_LINES = 5_000;
const MAX_AUTH_HEADER_BYTES = 1024 * 1024;
const MAX_AUTH_FIELD_BYTES = 64 * 1024;

/** The raw message when its header section is within bounds, else a copy with the bounded one described above. */
export function authenticationView(raw: Buffer): Buffer {
  const { fields, body } = splitHeaderFields(raw);
  const names = fields.map(fieldName);
  let lines = 0;
  for (const field of fields) lines += fieldLines(field);
  const signatures = names.filter((name) => name === 'dkim-signature').length;
  if (lines <= MAX_AUTH_HEADER_LINES && raw.length - body.length <= MAX_AUTH_HEADER_BYTES && signatures <= MAX_DKIM_SIGNATURES) return raw;

  const wanted = new Set(['from', 'dkim-signature']);
  let signaturesKept = 0;
  const keep = fields.map((field, i) => {
    const name = names[i] ?? '';
    if (field.length > MAX_AUTH_FIELD_BYTES) return false;
    if (name === 'dkim-signature') {
      signaturesKept += 1;
      if (signaturesKept > MAX_DKIM_SIGNATURES) return false;
    } else if (!name.startsWith('arc-')) return null; // decided once the signatures' h= lists are known
    for (const signed of signedNames(field)) wanted.add(signed);
    return true;
  });
  const kept: Buffer[] = [];
  let bytes = 0;
  lines = 0;
  fields.forEach((field, i) => {
    const decided = keep[i];
    if (decided === false || (decided === null && !wanted.has(names[i] ?? ''))) return;
    const fieldLineCount = fieldLines(field);
    if (lines + fieldLineCount > MAX_AUTH_HEADER_LINES || bytes + field.length > MAX_AUTH_HEADER_BYTES) return;
    kept.push(field);
    lines += fieldLineCount;
    bytes += field.length;
  });
  return Buffer.concat([...kept, Buffer.from('\r\n'), body]);
}

/** The lower-cased header names of a signature's `h=` tag. */
function signedNames(field: Buffer): string[] {
  const tag = /(?:^|;)\s*h\s*=([^;]*)/i.exec(field.toString('latin1').replace(/^[^:]*:/, ''))?.[1] ?? '';
  return tag
    .split(':')
    .map((name) => name.replace(/\s+/g, '').toLowerCase())
    .filter(Boolean);
}
