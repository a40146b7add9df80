import ipaddr from 'ipaddr.js';
import type { DomainResolver, RecordLookup } from '../check-domain-records';
import type { ExpectedRecord } from '../domain-records';
import { txtAt, verdict } from './dns-answers';
import { type SpfEvaluation, spfEvaluator } from './spf-evaluator';
import { spfSyntaxError } from './spf-syntax';
import { spfTestAddresses } from './spf-test-addresses';

const SPF_RECORD = /^v=spf1(\s|$)/i;

/**
 * Judges the return path's SPF record by evaluating it as a receiver does (RFC 7208), not by its
 * text: every address DOMAIN_SPF_MECHANISMS authorizes must pass, and an address none of them
 * names must not (nor end in permerror), so `+all`, broad ranges, mechanisms after `all`,
 * syntax errors, includes without a record and more than 10 lookups are all found. DNS not
 * answering anywhere on the way leaves it unknown.
 */
export async function checkSpfRecord(resolver: DomainResolver, record: ExpectedRecord): Promise<RecordLookup> {
  const txt = await txtAt(resolver, record.name);
  if (txt.kind === 'failed') return verdict('unknown', []);
  if (txt.kind === 'absent') return verdict('missing', []);
  const found = txt.records;
  const spfRecords = found.filter((text) => SPF_RECORD.test(text));
  if (spfRecords.length === 0) return verdict('missing', found);
  if (spfRecords.length > 1) return verdict('mismatch', found, `SPF evaluates to permerror: ${spfRecords.length} v=spf1 records at ${record.name}, and there may be one only (RFC 7208 §4.5)`);
  const published = spfRecords[0] ?? '';
  const syntax = spfSyntaxError(published);
  if (syntax) return verdict('mismatch', found, `SPF evaluates to permerror: a syntax error, ${syntax}`);

  const mechanisms = ourMechanisms(record.value);
  const tests = await spfTestAddresses(resolver, mechanisms, record.name);
  if (tests.dnsFailed) return verdict('unknown', found);
  const evaluator = spfEvaluator(resolver, record.name);
  const [ours, outsiders] = await Promise.all([
    Promise.all(tests.ours.map(async (test) => ({ ...(await evaluator.evaluate(test.ip)), term: test.term }))),
    Promise.all(tests.outsiders.map((ip) => evaluator.evaluate(ip))),
  ]);
  const evaluations: SpfEvaluation[] = [...ours, ...outsiders];
  if (evaluator.dnsFailed || evaluations.some((e) => e.result === 'temperror')) return verdict('unknown', found);
  if (evaluator.syntaxError) return verdict('mismatch', found, `SPF evaluates to permerror: a syntax error in ${evaluator.syntaxError}`);

  const failing = ours.find((e) => e.result !== 'pass');
  if (failing) {
    const detail = failing.result === 'permerror' ? `: ${failing.text}` : afterAllHint(published);
    return verdict('mismatch', found, `SPF evaluates to ${failing.result} for ${failing.ip}, one of our sending addresses (${failing.term})${detail}`);
  }
  // Also read from the text: mailauth 4.13 takes ip6:::/0 for the single address ::.
  const broad = outsiders.find((e) => e.result === 'pass') ?? tests.outsiders.map((ip) => ({ ip })).find(({ ip }) => namesAddress(published, ip));
  if (broad) {
    const cause = /(^|\s)\+?all(\s|$)/i.test(published) ? ': +all lets every address on the internet pass' : ': the record authorizes more than our senders';
    return verdict('mismatch', found, `SPF passes for ${broad.ip}, an address that is not ours${cause}`);
  }
  const broken = outsiders.find((e) => e.result === 'permerror');
  if (broken) return verdict('mismatch', found, `SPF evaluates to permerror for ${broken.ip}, an address not ours: ${broken.text}`);
  const terms = new Set(published.toLowerCase().split(' '));
  const unnamed = tests.untestable.filter((term) => !terms.has(term.toLowerCase()));
  if (unnamed.length > 0) return verdict('mismatch', found, `the record does not name ${unnamed.join(', ')}, and no address of it could be found to test`);
  return verdict('match', found);
}

/** Whether a `+` ip4:/ip6: term of the record covers the address. */
function namesAddress(record: string, ip: string): boolean {
  const address = ipaddr.parse(ip);
  return record.split(' ').some((term) => {
    const match = /^\+?ip[46]:(.+?)(?:\/(\d+))?$/i.exec(term);
    if (!match || !ipaddr.isValid(match[1] ?? '')) return false;
    const network = ipaddr.parse(match[1] ?? '');
    const bits = match[2] === undefined ? (network.kind() === 'ipv4' ? 32 : 128) : Number(match[2]);
    return network.kind() === address.kind() && address.match(network, bits);
  });
}

/** The mechanisms of the record we ask for: `v=spf1 <these> -all`. */
function ourMechanisms(value: string): string {
  return value.replace(/^v=spf1\s*/i, '').replace(/\s*-all$/i, '');
}

/** Why our address fails when the record puts mechanisms after an `all` term. */
function afterAllHint(record: string): string {
  const terms = record.split(' ').filter(Boolean).slice(1);
  const at = terms.findIndex((t) => /^[+\-?~]?all$/i.test(t));
  const after = at >= 0 ? terms.slice(at + 1).filter((t) => !t.includes('=')) : [];
  return after.length > 0 ? `: ${after.join(' ')} come${after.length === 1 ? 's' : ''} after ${terms[at]}, and nothing after all is ever tested` : '';
}
