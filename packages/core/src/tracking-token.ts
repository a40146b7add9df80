import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import { ID_PREFIX, isId } from './ids';

/** What a tracking URL stands for: an open of, or a click in, one recipient's copy of an email. */
export type TrackingTarget =
  | { kind: 'open'; emailId: string; recipientId: string }
  | { kind: 'click'; emailId: string; recipientId: string; url: string };

const VERSION = 1;
const KIND_BYTE = { open: 0x6f, click: 0x63 } as const; // 'o', 'c'
const ULID_BYTES = 16; // 128 bits
const MAC_BYTES = 16; // truncated HMAC-SHA256: 128 bits, unforgeable by guessing
const HEADER_BYTES = 2 + 2 * ULID_BYTES; // version, kind, email id, recipient id
const MAX_URL_BYTES = 8192; // far beyond any link a mail client follows; keeps tokens bounded
const MAX_TOKEN_CHARS = Math.ceil(((HEADER_BYTES + MAX_URL_BYTES + MAC_BYTES) * 4) / 3);
const TOKEN_CHARS = /^[A-Za-z0-9_-]+$/;
const HTTP_PREFIX = /^https?:\/\//i;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * Signs and checks the tokens of tracking URLs (DESIGN §6): `/o/<token>` and `/c/<token>`.
 * A token is base64url of `version | kind | email ULID | recipient ULID | url (clicks only) |
 * MAC`, the MAC a truncated HMAC-SHA256 with the `tracking` sub-key over everything before it.
 * ULIDs travel as their 16 bytes, so an open token is 67 characters and a click token about 4/3 of its URL more.
 * A forged, truncated or altered token verifies to null, so the redirect is never open.
 */
export class TrackingTokens {
  // Imported once: HMAC with a KeyObject does not copy and import raw key bytes per token.
  private readonly key: KeyObject;

  /** `key` is `deriveKey(secret, 'tracking')`. */
  constructor(key: Buffer) {
    this.key = createSecretKey(key);
  }

  sign(target: TrackingTarget): string {
    const url = target.kind === 'click' ? Buffer.from(target.url, 'utf8') : Buffer.alloc(0);
    if (target.kind === 'click' && !isTrackableUrl(target.url)) throw new Error('Only http(s) links are tracked.');
    const body = Buffer.concat([
      Buffer.from([VERSION, KIND_BYTE[target.kind]]),
      ulidBytes(target.emailId, 'email'),
      ulidBytes(target.recipientId, 'recipient'),
      url,
    ]);
    return Buffer.concat([body, this.mac(body)]).toString('base64url');
  }

  /** The target a token stands for, or null unless it is exactly a token this key signed. */
  verify(token: string): TrackingTarget | null {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_CHARS || !TOKEN_CHARS.test(token)) return null;
    // Node's decoder ignores stray bits; only the canonical spelling of a token is accepted.
    if (!isCanonicalBase64url(token)) return null;
    const bytes = Buffer.from(token, 'base64url');
    if (bytes.length < HEADER_BYTES + MAC_BYTES) return null;
    if (bytes.length > HEADER_BYTES + MAX_URL_BYTES + MAC_BYTES) return null;
    const body = bytes.subarray(0, bytes.length - MAC_BYTES);
    if (!timingSafeEqual(this.mac(body), bytes.subarray(bytes.length - MAC_BYTES))) return null;
    if (body[0] !== VERSION) return null;
    const emailId = `${ID_PREFIX.email}_${encodeUlid(body.subarray(2, 2 + ULID_BYTES))}`;
    const recipientId = `${ID_PREFIX.recipient}_${encodeUlid(body.subarray(2 + ULID_BYTES, HEADER_BYTES))}`;
    const url = body.subarray(HEADER_BYTES).toString('utf8');
    if (body[1] === KIND_BYTE.open && url === '') return { kind: 'open', emailId, recipientId };
    // The MAC proves this deployment signed the URL, and sign() accepts only http(s): the prefix check is the fast path.
    if (body[1] === KIND_BYTE.click && (HTTP_PREFIX.test(url) || isTrackableUrl(url))) return { kind: 'click', emailId, recipientId, url };
    return null;
  }

  private mac(body: Buffer): Buffer {
    return createHmac('sha256', this.key).update(body).digest().subarray(0, MAC_BYTES);
  }
}

/**
 * Whether `token` (base64url characters only) is the one spelling of its bytes, without
 * encoding them again: no lone last character, and no set bits past the last byte.
 */
function isCanonicalBase64url(token: string): boolean {
  const tail = token.length % 4;
  if (tail === 0) return true;
  if (tail === 1) return false;
  const last = token.charCodeAt(token.length - 1);
  const value = last >= 97 ? last - 71 : last >= 65 ? last - 65 : last >= 48 && last <= 57 ? last + 4 : last === 45 ? 62 : 63;
  return (value & (tail === 2 ? 0x0f : 0x03)) === 0;
}

function isTrackableUrl(url: string): boolean {
  if (Buffer.byteLength(url) > MAX_URL_BYTES) return false;
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

// A ULID is 26 Crockford base32 characters, 130 bits, of which the top two are zero: 128 bits,
// 16 bytes. Converted 5 bits at a time with small integers (no BigInt: this is the hot path).
function ulidBytes(id: string, kind: 'email' | 'recipient'): Buffer {
  if (!isId(kind, id)) throw new Error(`Not a ${kind} id: ${id}`);
  const chars = id.slice(ID_PREFIX[kind].length + 1);
  const first = CROCKFORD.indexOf(chars[0] as string);
  if (first > 7) throw new Error(`Not a ${kind} id: ${id}`); // a first character above 7 overflows 128 bits
  const out = Buffer.alloc(ULID_BYTES);
  let acc = first;
  let bits = 3;
  let at = 0;
  for (let i = 1; i < chars.length; i++) {
    acc = (acc << 5) | CROCKFORD.indexOf(chars[i] as string);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[at++] = (acc >> bits) & 0xff;
      acc &= (1 << bits) - 1;
    }
  }
  return out;
}

function encodeUlid(bytes: Uint8Array): string {
  let out = '';
  let acc = 0;
  let bits = 2; // the two leading zero bits
  for (let i = 0; i < ULID_BYTES; i++) {
    acc = (acc << 8) | (bytes[i] as number);
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += CROCKFORD[(acc >> bits) & 31];
      acc &= (1 << bits) - 1;
    }
  }
  return out;
}
