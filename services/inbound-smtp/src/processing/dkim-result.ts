/** What this module reads of one of mailauth's DKIM results (mailauth 4.13 dkim-verifier.js). */
export interface MailauthSignature {
  status: { result: string; comment?: string | false };
  /** a= of the signature, e.g. `rsa-sha256`. */
  algo?: string;
  /** The key record as mailauth read it (whitespace removed), when it read one. */
  rr?: string;
  /** b= of the signature, whitespace removed. */
  signature?: string;
}

// mailauth's comments on a key it could not use: no record, a v= other than DKIM1, a key type it
// does not know or that k= contradicts, an empty (revoked) or unparsable p=.
const KEY_PROBLEMS = new Set(['no key', 'unknown key version', 'unknown key type', 'invalid public key']);
const BODY_HASH_MISMATCH = 'body hash did not verify';
// mailauth's comments on a signature that verified but whose x= has passed, or is before its t=.
const TIME_PROBLEMS = new Set(['expired', 'invalid expiration']);

/**
 * A signature's result as RFC 8601 §2.7.1 names it, where mailauth 4.13 says `neutral` for
 * failures RFC 6376 makes PERMFAIL, or passes a signature RFC 6376 or RFC 8301 does not allow.
 * `permerror` (an error a later attempt will not cure, as for an unreadable signature,
 * unreadable-signatures.ts), whatever mailauth found, for a signature that is to be ignored
 * before it is verified:
 * - rsa-sha1: RFC 8301 §3.1 ("rsa-sha1 MUST NOT be used for signing or verifying"; such
 *   signatures "have permanently failed evaluation", RFC 6376 §3.9: PERMFAIL);
 * - from `tags` (the signature field's, see dkim-signature-tags.ts), when known: an h= that
 *   is missing or does not name From (RFC 6376 §3.5, §6.1.1: "PERMFAIL (From field not
 *   signed)"), and an i= whose domain is neither d= nor a subdomain of it (§3.5, §6.1.1:
 *   "PERMFAIL (domain mismatch)").
 * Otherwise:
 * - a body hash that does not match (RFC 6376 §6.1.3) is `fail`: the signature was processed
 *   and failed verification, as an altered header is (mailauth says `fail` for that one);
 * - no key record, a revoked key (empty p=), a key of another version or type, or one that
 *   cannot be read (RFC 6376 §6.1.2 steps 2-7: PERMFAIL) is `permerror`;
 * - an x= that has passed, or that is not after t= (RFC 6376 §3.5, §6.1.1: "PERMFAIL
 *   (signature expired)"), is `permerror`;
 * - a key record whose h= does not list the signature's hash algorithm: RFC 6376 §3.6.1 and
 *   §6.1.2 step 6 ("MUST ignore the signature and return PERMFAIL (inappropriate hash
 *   algorithm)"), which mailauth does not check, is `permerror` instead of `pass`.
 * Every other result is mailauth's.
 */
export function dkimResult(signature: MailauthSignature, tags?: ReadonlyMap<string, string>): string {
  const { result, comment } = signature.status;
  if (hashOf(signature.algo) === 'sha1' || (tags && !(signsFrom(tags) && identityUnderDomain(tags)))) return 'permerror';
  if (result === 'neutral' && comment === BODY_HASH_MISMATCH) return 'fail';
  if (result === 'neutral' && typeof comment === 'string' && (KEY_PROBLEMS.has(comment) || TIME_PROBLEMS.has(comment))) return 'permerror';
  if (result === 'pass' && !keyAllowsHash(signature.rr, signature.algo)) return 'permerror';
  return result;
}

const hashOf = (algorithm: string | undefined) => (algorithm ?? '').toLowerCase().split('-').pop() ?? '';

/** Whether h= (colon-separated, any case) names From. */
function signsFrom(tags: ReadonlyMap<string, string>): boolean {
  return (tags.get('h') ?? '')
    .split(':')
    .some((name) => name.toLowerCase() === 'from');
}

/** Whether i=, when present, is `[local-part]@domain` with that domain d= or a subdomain of it (label by label, any case). */
function identityUnderDomain(tags: ReadonlyMap<string, string>): boolean {
  const identity = tags.get('i');
  if (identity === undefined) return true;
  const at = identity.lastIndexOf('@');
  const domain = (tags.get('d') ?? '').toLowerCase().replace(/\.$/, '');
  if (at < 0 || !domain) return false;
  const identityDomain = identity.slice(at + 1).toLowerCase().replace(/\.$/, '');
  return identityDomain === domain || identityDomain.endsWith(`.${domain}`);
}

/** Whether the key record's h= (a colon-separated list; absent means any) names the hash of `algorithm`. */
function keyAllowsHash(record: string | undefined, algorithm: string | undefined): boolean {
  const tag = record
    ?.split(';')
    .map((pair) => pair.trim())
    .find((pair) => /^h=/i.test(pair));
  if (tag === undefined) return true;
  const hash = hashOf(algorithm);
  return tag
    .slice(2)
    .split(':')
    .map((name) => name.trim().toLowerCase())
    .includes(hash);
}
