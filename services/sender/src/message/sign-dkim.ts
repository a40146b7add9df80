import { createSign, type KeyObject } from 'node:crypto';
import { domainToASCII } from 'node:url';
import RelaxedBody from 'nodemailer/lib/dkim/relaxed-body';
import { foldLines } from 'nodemailer/lib/mime-funcs';
import type { RawMessage } from '../delivery/raw-message';

/**
 * Signed when present (RFC 6376 §5.4.1, and what mailbox providers check): the addressing and
 * content headers, and the list headers a one-click unsubscribe relies on.
 */
const SIGNED_HEADERS = [
  'from', 'sender', 'reply-to', 'subject', 'date', 'message-id', 'to', 'cc', 'mime-version', 'content-type',
  'content-transfer-encoding', 'content-id', 'content-description', 'in-reply-to', 'references',
  'list-id', 'list-help', 'list-unsubscribe', 'list-unsubscribe-post', 'list-subscribe', 'list-post', 'list-owner', 'list-archive',
];

/**
 * Oversigned (RFC 6376 §8.15): named once more in `h=` than the message has them, present or
 * not, so a second `From` or `Subject` added on the way (which a reader may show instead of
 * ours) or a `Cc` added where there was none breaks the signature instead of riding on it. The
 * list headers a mailing list adds (List-Id, List-Post…) are left out, as OpenDKIM's and
 * Postfix's usual `OversignHeaders` leave them: a list would break every signature it relays.
 */
const OVERSIGNED = new Set([
  'from', 'sender', 'reply-to', 'subject', 'date', 'message-id', 'to', 'cc', 'mime-version', 'content-type',
  'content-transfer-encoding', 'in-reply-to', 'references', 'list-unsubscribe', 'list-unsubscribe-post',
]);

interface Header {
  /** The field's name, lower-cased. */
  key: string;
  /** The whole field as latin1 (its bytes), folded as sent. */
  line: string;
}

/**
 * The `DKIM-Signature` field (without its CRLF), rsa-sha256, relaxed/relaxed. `h=` names every
 * instance of each signed field the message has, and each oversigned name once more; the hash
 * takes instances bottom-up, a name with none left adding nothing (the null string, §5.4.2).
 */
function signHeaders(headers: Header[], bodyHash: string, key: DkimKey): string {
  const names: string[] = [];
  for (const name of SIGNED_HEADERS) {
    const count = headers.filter((h) => h.key === name).length;
    for (let i = 0; i < count + (OVERSIGNED.has(name) ? 1 : 0); i++) names.push(name);
  }
  const tags = ['v=1', 'a=rsa-sha256', 'c=relaxed/relaxed', `d=${domainToASCII(key.domain)}`, 'q=dns/txt', `s=${key.selector}`, `bh=${bodyHash}`, `h=${names.join(':')}`];
  const field = `${foldLines(`DKIM-Signature: ${tags.join('; ')}`, 76)};\r\n b=`;
  const signer = createSign('RSA-SHA256');
  // Header lines are latin1 strings of the message's bytes, so this hashes those bytes.
  signer.update(`${canonicalHeaders(headers, names)}dkim-signature:${relaxedValue(field)}`, 'latin1');
  const signature = signer.sign(key.privateKey, 'base64');
  return field + signature.replace(/(^.{73}|.{75}(?!\r?\n|\r))/g, '$&\r\n ').trim();
}

/** The header fields `names` select, in that order, each instance taken from the bottom up (RFC 6376 §5.4.2). */
function canonicalHeaders(headers: Header[], names: readonly string[]): string {
  const taken = new Map<string, number>();
  let out = '';
  for (const name of names) {
    let skip = taken.get(name) ?? 0;
    taken.set(name, skip + 1);
    for (let i = headers.length - 1; i >= 0; i--) {
      const header = headers[i] as Header;
      if (header.key !== name || skip-- > 0) continue;
      out += `${name}:${relaxedValue(header.line)}\r\n`;
      break;
    }
  }
  return out;
}

/** A field's value in relaxed canonicalization: unfolded, runs of SP and HTAB as one SP, none at either end. */
function relaxedValue(line: string): string {
  return line
    .slice(line.indexOf(':') + 1)
    .replace(/\r?\n/g, '')
    .replace(/[ \t]+/g, ' ')
    .replace(/^ | $/g, '');
}

/** A verified domain's current key. */
export interface DkimKey {
  domain: string;
  selector: string;
  privateKey: KeyObject;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * The `DKIM-Signature` field (with its CRLF) for a message given whole or as parts, signed
 * rsa-sha256 with relaxed/relaxed canonicalization (nodemailer's body canonicalizer). The parts are
 * read, never copied: prepend the field to them to send the signed message.
 */
export async function dkimSignature(raw: Buffer | RawMessage, key: DkimKey): Promise<Buffer> {
  const parts = Buffer.isBuffer(raw) ? [raw] : raw;
  const first = parts[0] ?? Buffer.alloc(0);
  // The header section is always inside the first part (a skeleton's prefix holds every header).
  const end = first.indexOf(HEADER_END);
  if (end < 0) throw new Error('The message header section does not end in its first part');
  const headers = first
    .subarray(0, end)
    .toString('latin1')
    .split(/\r\n(?![ \t])/)
    .map((line) => ({ key: line.slice(0, line.indexOf(':')).trim().toLowerCase(), line }));

  const body = new RelaxedBody({ hashAlgo: 'sha256' });
  const bodyHash = new Promise<string>((resolve, reject) => {
    body.once('hash', resolve);
    body.once('error', reject);
  });
  body.resume(); // only the hash is wanted
  body.write(first.subarray(end + HEADER_END.length));
  for (const part of parts.slice(1)) body.write(part);
  body.end();

  return Buffer.from(`${signHeaders(headers, await bodyHash, key)}\r\n`, 'latin1');
}

/**
 * Signs the messages of one email: when a recipient's message is made of the same Buffers as
 * the last one signed (no tracking: every recipient's bytes are the same), the signature is
 * reused, so the shared message is signed once.
 */
export class MessageSigner {
  private last: { parts: readonly Buffer[]; field: Promise<Buffer> } | null = null;

  constructor(private readonly key: DkimKey) {}

  /** The message with its signature field first, as parts (nothing copied). */
  async sign(raw: Buffer | RawMessage): Promise<RawMessage> {
    const parts = Buffer.isBuffer(raw) ? [raw] : raw;
    const last = this.last;
    const same = last !== null && last.parts.length === parts.length && last.parts.every((p, i) => p === parts[i]);
    const field = same ? last.field : dkimSignature(parts, this.key);
    if (!same) this.last = { parts, field };
    return [await field, ...parts];
  }
}
