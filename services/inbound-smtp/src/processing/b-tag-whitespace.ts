import { createHash, verify } from 'node:crypto';
import type { MailauthSignature } from './dkim-result';

/** What this module reads of one of mailauth's DKIM results, beyond dkim-result.ts (mailauth 4.13 dkim-verifier.js). */
export interface VerifiedSignature extends MailauthSignature {
  /** c= as written, e.g. `relaxed/simple`. */
  format?: string;
  /** The signed header fields mailauth selected by h=, as written. */
  signingHeaders?: { headers?: string[] };
  /** The key mailauth fetched (PEM), when it fetched one. */
  publicKey?: string;
}

// FWS between the tag name b and its `=` (RFC 6376 §3.2: tag-spec = [FWS] tag-name [FWS] "=" ...).
const SPACED_B = /(^|[;\s])b[ \t\r\n]+=/;

/**
 * The signature with its result decided again when its field writes b= with whitespace before
 * the `=` (`b =...`), which RFC 6376 §3.2 allows. mailauth 4.13 empties b= for the header hash
 * by matching `b=` right after `;` or whitespace (dkim/header/relaxed.js and simple.js), so for
 * such a field it hashes the signature value too and says `fail` for a good signature. Here
 * b='s value is removed as §3.7 says ("the value of the b= tag (including all surrounding
 * whitespace) deleted"), and the signature checked with the key and header fields mailauth
 * used. Any other signature is returned unchanged.
 */
export function withWhitespaceBeforeB(signature: VerifiedSignature, field: Buffer | undefined): VerifiedSignature {
  if (signature.status.result !== 'fail' || !field || !signature.publicKey || !signature.signature) return signature;
  const raw = field.toString('utf8').replace(/\r?\n$/, '');
  if (!SPACED_B.test(raw.slice(raw.indexOf(':') + 1))) return signature;
  const relaxed = (signature.format ?? 'simple').split('/')[0]?.trim().toLowerCase() === 'relaxed';
  const canonical = (line: string) => (relaxed ? relaxedHeader(line) : line.replace(/\r?\n$/, ''));
  const emptied = raw.replace(/(^[^:]*:(?:[^;]*;)*?\s*b[ \t\r\n]*=)[^;]*/, '$1');
  const data = Buffer.from(
    (signature.signingHeaders?.headers ?? []).map((line) => `${canonical(line)}\r\n`).join('') + canonical(emptied),
    'utf8',
  );
  const [signAlgorithm, hash] = (signature.algo ?? '').toLowerCase().split('-');
  const value = Buffer.from(signature.signature, 'base64');
  let good = false;
  try {
    good =
      signAlgorithm === 'ed25519'
        ? verify(null, createHash('sha256').update(data).digest(), signature.publicKey, value)
        : verify(`${signAlgorithm}-${hash}`, data, signature.publicKey, value);
  } catch {
    return signature;
  }
  return good ? { ...signature, status: { result: 'pass' } } : signature;
}

/** RFC 6376 §3.4.2: name lower-cased, unfolded, whitespace runs one space, none around the colon or at the end. */
function relaxedHeader(line: string): string {
  const unfolded = line.replace(/\r?\n(?=[ \t])/g, '').replace(/\r?\n$/, '');
  const colon = unfolded.indexOf(':');
  return `${unfolded.slice(0, colon).trim().toLowerCase()}:${unfolded.slice(colon + 1).replace(/[ \t]+/g, ' ').trim()}`;
}
