import { DnsServer } from '../../../test/support/dns-server';
import { type AuthenticationVerdicts, authenticateMessage } from '../src/processing';
import { type AllowedDisagreement, type Difference, testAllowedDisagreements } from '../../../test/support/allowed-disagreements';
import { type AuthenticationCase, buildCases, CASE_NAMES } from './support/authentication-cases';
import { zone } from './support/authentication-zone';
import { type PythonVerdicts, pythonAuthenticate } from './support/authheaders';

/**
 * Inbound authentication (authenticateMessage: mailauth and our workarounds) against an
 * independent implementation, Debian's authheaders with dkimpy and pyspf
 * (support/authenticate.py), on scenarios made by support/authentication-cases.ts: DKIM
 * signatures by dkimpy (rsa and ed25519, every canonicalization, l=, oversigning, broken and
 * third-party ones, key records with flags, rsa-sha1, t= and x=, h= without From, i= outside d=,
 * FWS around `=`), DMARC alignment and policies (and a From with several addresses, or fields, or
 * none), SPF mechanisms, macros, modifiers and limits, and ARC chains sealed by dkimpy. Both sides get the same DNS records
 * (ours through a DnsServer, Python's through its lookup hooks) and nothing else. Compared: the
 * SPF result and domain, each signature's result, domain and selector, the DMARC result,
 * policy and domain, and the ARC result.
 */
// Building (dkimpy) and judging (both sides) about 110 messages: ~6 s, far more on a loaded machine.
const CASES_TIMEOUT_MS = 60_000;

const NO_RECORD_FROM_DOMAIN =
  'no DMARC record: authheaders reports no header.from at all, we report the From domain DMARC was looked up for, which RFC 7489 §11.2 defines header.from to be whatever the result';

/**
 * Disagreements judged by the RFCs (7208, 6376, 8463, 8617, 7489, 8601) where the Python side is
 * the outlier. Each listed field must still be a disagreement: an entry that stops being one
 * fails the test. (Where we were the outlier, our code was fixed: dkim-result.ts,
 * dmarc-alignment.ts, author-domains-dmarc.ts, b-tag-whitespace.ts.)
 */
const ALLOWED: AllowedDisagreement[] = [
  {
    message: 'dmarc-sp-not-for-organizational-domain',
    fields: ['dmarc.policy'],
    reason: 'authheaders applies sp= to the organizational domain itself; RFC 7489 §6.3 gives sp= to subdomains only, p= to the domain that published the record',
  },
  { message: 'dmarc-no-record', fields: ['dmarc.domain'], reason: NO_RECORD_FROM_DOMAIN },
  { message: 'spf-include-pass', fields: ['dmarc.domain'], reason: NO_RECORD_FROM_DOMAIN },
  {
    message: 'key-h-sha1-only',
    fields: ['dkim[0].result', 'dmarc.result'],
    reason: 'dkimpy ignores the key record\'s h=; RFC 6376 §3.6.1 and §6.1.2 make an a= hash the key does not list a PERMFAIL (permerror), so the signature cannot pass DMARC',
  },
  {
    message: 'rsa-sha1-signature',
    fields: ['dkim[0].result', 'dmarc.result'],
    reason: 'dkimpy verifies rsa-sha1; RFC 8301 §3.1 says it MUST NOT be used for verifying and such signatures have permanently failed (RFC 6376 §3.9 PERMFAIL: permerror), so it cannot pass DMARC',
  },
  { message: 'rsa-sha1-and-rsa-sha256', fields: ['dkim[0].result'], reason: 'dkimpy verifies rsa-sha1; RFC 8301 §3.1 makes it a permanent failure (permerror)' },
  {
    message: 'dkim-timestamp-in-future',
    fields: ['dkim[0].result', 'dmarc.result'],
    reason: 'open: RFC 6376 §3.5 says verifiers MAY ignore a signature whose t= is in the future; dkimpy does (beyond 10 h), mailauth and we do not',
  },
  {
    message: 'dkim-expiry-before-timestamp',
    fields: ['dkim[0].result', 'dmarc.result'],
    reason: 'dkimpy 1.1.4 never reaches its x= < t= check (it follows a raise); RFC 6376 §3.5 requires x= greater than t=, an invalid signature (§6.1.1 PERMFAIL)',
  },
  {
    message: 'dkim-h-without-from',
    fields: ['dkim[0].result', 'dmarc.result'],
    reason: 'dkimpy checks From in h= only when signing; RFC 6376 §6.1.1 has a verifier ignore such a signature: "PERMFAIL (From field not signed)"',
  },
  {
    message: 'from-two-addresses-one-unaligned',
    fields: ['dmarc.result', 'dmarc.policy', 'dmarc.domain'],
    reason: 'authheaders reports the domain with the strictest policy even when it passed; RFC 7489 §6.6.1 applies "the most strict policy selected among the checks that fail" (other.test, p=none)',
  },
  {
    message: 'from-field-prepended-to-third-party-signature',
    fields: ['dkim[0].result'],
    reason: 'open: dkimpy fails a signature when more From fields exist than h= names; RFC 6376 §5.4.2 picks fields bottom-up, so it verifies, and §8.15 leaves the extra field to policy (DMARC fails here)',
  },
];

function differences(ours: AuthenticationVerdicts, python: PythonVerdicts): Difference[] {
  const out: Difference[] = [];
  const compare = (field: string, a: unknown, b: unknown) => {
    if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ field, ours: a, python: b });
  };
  compare('spf.result', ours.spf.result, python.spf.result);
  compare('spf.domain', ours.spf.domain, python.spf.domain);
  compare('dkim.length', ours.dkim.length, python.dkim.length);
  ours.dkim.forEach((signature, i) => {
    const theirs = python.dkim[i];
    compare(`dkim[${i}].result`, signature.result, theirs?.result);
    compare(`dkim[${i}].domain`, signature.domain, theirs?.domain);
    compare(`dkim[${i}].selector`, signature.selector, theirs?.selector);
  });
  compare('dmarc.result', ours.dmarc.result, python.dmarc.result);
  compare('dmarc.policy', ours.dmarc.policy, python.dmarc.policy);
  compare('dmarc.domain', ours.dmarc.domain, python.dmarc.domain);
  compare('arc.result', ours.arc.result, python.arc.result);
  return out;
}

describe('inbound authentication against authheaders, dkimpy and pyspf', () => {
  const found = new Map<string, Difference[]>();
  let cases: AuthenticationCase[] = [];
  let dns: DnsServer;

  beforeAll(async () => {
    dns = await new DnsServer({ zone }).start();
    cases = await buildCases();
    const python = await pythonAuthenticate(cases.map((c) => ({ ...c, records: zone })));
    for (const [i, c] of cases.entries()) {
      // One at a time: each message's DNS budget is its own, and the machine may be loaded.
      const ours = await authenticateMessage(c.message, { remoteAddress: c.ip, helo: c.helo, mailFrom: c.mailFrom, mta: 'mx.acme.test', dnsServers: [dns.address] });
      const theirs = python[i] as PythonVerdicts;
      const diff = differences(ours, theirs);
      found.set(c.name, diff);
    }
  }, CASES_TIMEOUT_MS);
  afterAll(() => dns?.stop());

  test('the corpus is built as named', () => {
    expect(cases.map((c) => c.name)).toEqual(CASE_NAMES);
  });

  testAllowedDisagreements(CASE_NAMES, ALLOWED, found, 'authenticated');
});
