import { signatureTags } from './dkim-signature-tags';

/** A DKIM-Signature mailauth did not verify because it could not read it. */
export interface UnreadableSignature {
  domain: string | null;
  selector: string | null;
}

// What mailauth 4.13 verifies (dkim-verifier.js); a signature outside this is skipped without a
// result, as if the message were unsigned.
const SIGN_ALGORITHMS = new Set(['rsa', 'ed25519']);
const HASH_ALGORITHMS = new Set(['sha256', 'sha1']);
const CANONICALIZATIONS = new Set(['relaxed', 'simple']);

/**
 * Of the message's DKIM-Signature fields (`fields`, topmost first; at most `max`, as mailauth is shown them), those
 * that mailauth skips: a missing `d=` or `s=`, an algorithm or canonicalization it does not
 * know, or a field that is not a tag list at all. RFC 6376 §6.1.1 makes such a signature a
 * PERMFAIL, which RFC 8601 reports as `permerror`; mailauth leaves it out of its results.
 * `verified` is how many signatures mailauth did report: when the fields and its results do not
 * add up (a field read differently than mailauth reads it), each missing signature is reported
 * with a null domain and selector rather than guessed.
 */
export function unreadableSignatures(fields: readonly Buffer[], verified: number, max: number): UnreadableSignature[] {
  const signatures = fields.slice(0, max);
  const missing = signatures.length - verified;
  if (missing <= 0) return [];
  const skipped = signatures.map(signatureTags).filter((tags) => isSkipped(tags));
  if (skipped.length === missing) return skipped.map((tags) => ({ domain: tags.get('d') || null, selector: tags.get('s') || null }));
  return Array.from({ length: missing }, () => ({ domain: null, selector: null }));
}

function isSkipped(tags: Map<string, string>): boolean {
  const algorithm = (tags.get('a') ?? '').toLowerCase();
  const [header = '', body = ''] = (tags.get('c') ?? '').toLowerCase().split('/');
  return (
    !SIGN_ALGORITHMS.has(algorithm.split('-')[0] ?? '') ||
    !HASH_ALGORITHMS.has(algorithm.split('-').pop() ?? '') ||
    !CANONICALIZATIONS.has(header || 'simple') ||
    !CANONICALIZATIONS.has(body || 'simple') ||
    !tags.get('d') ||
    !tags.get('s')
  );
}
