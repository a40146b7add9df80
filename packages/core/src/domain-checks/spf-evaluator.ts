import { spf } from 'mailauth/lib/spf';
import type { DomainResolver } from '../check-domain-records';
import { isAbsent } from './dns-answers';
import { spfSyntaxError } from './spf-syntax';

/** An SPF result (RFC 7208 §2.6) for one client address, with the evaluator's explanation. */
export interface SpfEvaluation {
  ip: string;
  result: 'pass' | 'fail' | 'softfail' | 'neutral' | 'none' | 'permerror' | 'temperror';
  text: string;
}

/** Evaluates a domain's SPF record for client addresses, as a receiver would. */
export interface SpfEvaluator {
  evaluate(ip: string): Promise<SpfEvaluation>;
  /** DNS failed to answer one of the lookups made so far (a temperror, also where the evaluator would have ignored it). */
  readonly dnsFailed: boolean;
  /** A syntax error in a record an evaluation read (an include:/redirect= target), which makes it a permerror (RFC 7208 §4.6). */
  readonly syntaxError: string | null;
}

type Lookup = { ok: true; records: unknown[] } | { ok: false; code: string; message: string };

/**
 * An evaluator for `domain` on mailauth's `spf()` (the library the MX authenticates mail with),
 * whose lookups go through `resolver`, each asked once for all the evaluations of one check.
 */
export function spfEvaluator(resolver: DomainResolver, domain: string): SpfEvaluator {
  const answers = new Map<string, Promise<Lookup>>();
  let dnsFailed = false;
  let syntaxError: string | null = null;

  const resolve = async (name: string, type: string): Promise<unknown[]> => {
    const key = `${type} ${name.toLowerCase()}`;
    let pending = answers.get(key);
    if (!pending) {
      // Once DNS has failed the verdict is unknown anyway: later lookups are not waited for.
      pending = dnsFailed ? Promise.resolve<Lookup>({ ok: false, code: 'ECANCELLED', message: 'an earlier lookup failed' }) : query(resolver, name, type);
      answers.set(key, pending);
    }
    const lookup = await pending;
    if (!lookup.ok) {
      // A new error each time: mailauth writes its verdict on the error it is given.
      const error = Object.assign(new Error(lookup.message), { code: lookup.code });
      if (!isAbsent(error)) {
        dnsFailed = true;
        // Without this, mailauth skips an include: whose lookup failed instead of answering temperror.
        Object.assign(error, { spfResult: { error: 'temperror', text: `DNS did not answer for ${name} (${lookup.code})` } });
      }
      throw error;
    }
    if (type === 'TXT' && syntaxError === null) {
      const spfRecords = (lookup.records as string[][]).map((chunks) => chunks.join('')).filter((t) => /^v=spf1(\s|$)/i.test(t));
      const problem = spfRecords.length === 1 ? spfSyntaxError(spfRecords[0] ?? '') : null;
      if (problem) syntaxError = `${name}: ${problem}`;
    }
    return lookup.records;
  };

  return {
    get dnsFailed() {
      return dnsFailed;
    },
    get syntaxError() {
      return syntaxError;
    },
    async evaluate(ip) {
      const answer = await spf({
        ip,
        sender: `postmaster@${domain}`,
        helo: domain,
        mta: 'mailroom',
        // mailauth's types give MX answers the shape of TXT ones.
        resolver: resolve as (name: string, type: string) => Promise<string[][]>,
      });
      const comment = answer.status.comment ?? '';
      return { ip, result: answer.status.result as SpfEvaluation['result'], text: /lookup of [^:]*: (.*)$/s.exec(comment)?.[1] ?? comment };
    },
  };
}

async function query(resolver: DomainResolver, name: string, type: string): Promise<Lookup> {
  try {
    switch (type) {
      case 'TXT':
        return { ok: true, records: await resolver.resolveTxt(name) };
      case 'MX':
        return { ok: true, records: await resolver.resolveMx(name) };
      case 'A':
        return { ok: true, records: await resolver.resolve4(name) };
      case 'AAAA':
        return { ok: true, records: await resolver.resolve6(name) };
      case 'PTR':
        return { ok: true, records: await resolver.resolvePtr(name) };
      default:
        return { ok: false, code: 'ENODATA', message: `no ${type} lookups here` };
    }
  } catch (err) {
    const { code = 'ESERVFAIL', message = String(err) } = err as { code?: string; message?: string };
    return { ok: false, code, message };
  }
}
