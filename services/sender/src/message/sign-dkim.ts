import type { KeyObject } from 'node:crypto';
import RelaxedBody from 'nodemailer/lib/dkim/relaxed-body';
import sign from 'nodemailer/lib/dkim/sign';
import type { RawMessage } from '../delivery/raw-message';

/**
 * Signed when present (RFC 6376 §5.4.1, and what mailbox providers check): the addressing and
 * content headers, and the list headers a one-click unsubscribe relies on.
 */
const SIGNED_HEADERS = [
  'From', 'Sender', 'Reply-To', 'Subject', 'Date', 'Message-ID', 'To', 'Cc', 'MIME-Version', 'Content-Type',
  'Content-Transfer-Encoding', 'Content-ID', 'Content-Description', 'In-Reply-To', 'References',
  'List-Id', 'List-Help', 'List-Unsubscribe', 'List-Unsubscribe-Post', 'List-Subscribe', 'List-Post', 'List-Owner', 'List-Archive',
].join(':');

/** A verified domain's current key. */
export interface DkimKey {
  domain: string;
  selector: string;
  privateKey: KeyObject;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * The `DKIM-Signature` field (with its CRLF) for a message given whole or as parts, signed
 * rsa-sha256 with relaxed/relaxed canonicalization by nodemailer's canonicalizer. The parts are
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

  const field = sign(headers, 'sha256', await bodyHash, {
    domainName: key.domain,
    keySelector: key.selector,
    privateKey: key.privateKey,
    headerFieldNames: SIGNED_HEADERS,
  });
  if (field === false) throw new Error(`DKIM signing failed for ${key.domain}`);
  return Buffer.from(`${field}\r\n`, 'latin1');
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
