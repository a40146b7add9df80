/** What this module reads of one of mailauth's DKIM results (mailauth 4.13 dkim-verifier.js). */
export interface MailauthSignature {
  status: { result: string; comment?: string | false };
  /** a= of the signature, e.g. `rsa-sha256`. */
  algo?: string;
  /** The key record as mailauth read it (whitespace removed), when it read one. */
  rr?: string;
}

// mailauth's comments on a key it could not use: no record, a v= other than DKIM1, a key type it
// does not know or that k= contradicts, an empty (revoked) or unparsable p=.
const KEY_PROBLEMS = new Set(['no key', 'unknown key version', 'unknown key type', 'invalid public key']);
const BODY_HASH_MISMATCH = 'body hash did not verify';

/**
 * A signature's result as RFC 8601 §2.7.1 names it, where mailauth 4.13 says `neutral` for
 * failures RFC 6376 makes PERMFAIL, or passes a signature its key does not allow:
 * - a body hash that does not match (RFC 6376 §6.1.3) is `fail`: the signature was processed
 *   and failed verification, as an altered header is (mailauth says `fail` for that one);
 * - no key record, a revoked key (empty p=), a key of another version or type, or one that
 *   cannot be read (RFC 6376 §6.1.2 steps 2-7: PERMFAIL) is `permerror`, as an unreadable
 *   signature is (unreadable-signatures.ts): an error a later attempt will not cure;
 * - a key record whose h= does not list the signature's hash algorithm: RFC 6376 §3.6.1 and
 *   §6.1.2 step 6 ("MUST ignore the signature and return PERMFAIL (inappropriate hash
 *   algorithm)"), which mailauth does not check, is `permerror` instead of `pass`.
 * Every other result is mailauth's.
 */
export function dkimResult(signature: MailauthSignature): string {
  const { result, comment } = signature.status;
  if (result === 'neutral' && comment === BODY_HASH_MISMATCH) return 'fail';
  if (result === 'neutral' && typeof comment === 'string' && KEY_PROBLEMS.has(comment)) return 'permerror';
  if (result === 'pass' && !keyAllowsHash(signature.rr, signature.algo)) return 'permerror';
  return result;
}

/** Whether the key record's h= (a colon-separated list; absent means any) names the hash of `algorithm`. */
function keyAllowsHash(record: string | undefined, algorithm: string | undefined): boolean {
  const tag = record
    ?.split(';')
    .map((pair) => pair.trim())
    .find((pair) => /^h=/i.test(pair));
  if (tag === undefined) return true;
  const hash = (algorithm ?? '').toLowerCase().split('-').pop() ?? '';
  return tag
    .slice(2)
    .split(':')
    .map((name) => name.trim().toLowerCase())
    .includes(hash);
}
