import { isAscii } from 'node:buffer';
import { Transform } from 'node:stream';
import type { PooledTransport } from './transport-pool';

/**
 * A complete RFC 5322 message as the Buffers that, concatenated, make it up. The parts are
 * shared, never copied: a skeleton's prefix and suffix (headers, text part, attachments) are
 * the same Buffer objects in every recipient's message.
 */
export type RawMessage = readonly Buffer[];

/** Total size of a message in bytes. */
export function rawMessageBytes(raw: Buffer | RawMessage): number {
  return Buffer.isBuffer(raw) ? raw.length : raw.reduce((sum, part) => sum + part.length, 0);
}

/**
 * True when a byte of the message is outside US-ASCII (a part sent `Content-Transfer-Encoding:
 * 8bit`, e.g. a forwarded message/rfc822 attachment, which may not be base64-encoded, RFC 2046
 * §5.2.1): such a message goes with BODY=8BITMIME (RFC 6152 §3).
 */
export function hasEightBitBytes(raw: Buffer | RawMessage): boolean {
  return Buffer.isBuffer(raw) ? !isAscii(raw) : raw.some((part) => !isAscii(part));
}

/** Where sendMail options carry a message given as parts. */
export const RAW_PARTS = 'mailroomRawParts';

/**
 * Lets `transport` send a message given as parts (`[RAW_PARTS]: parts` beside an empty `raw`).
 * Every time nodemailer streams the message, which it does again when it re-queues it after a
 * pooled connection died before a byte was sent, the parts are streamed afresh from the start:
 * a single stream handed over as `raw` would be resumed half-read instead.
 */
export function streamRawParts(transport: PooledTransport): void {
  transport.use('stream', (mail, done) => {
    const parts = (mail.data as { [RAW_PARTS]?: RawMessage })[RAW_PARTS];
    if (parts) {
      // nodemailer calls a transform given as a function once per stream it builds (typed as a stream only).
      mail.message.transform((() => new ReplaceWith(parts)) as unknown as Transform);
    }
    done();
  });
}

/** Drops its input (the empty `raw`) and gives `parts` instead, by reference. */
class ReplaceWith extends Transform {
  constructor(private readonly parts: RawMessage) {
    super();
  }

  override _transform(_chunk: unknown, _encoding: BufferEncoding, callback: () => void): void {
    callback();
  }

  override _flush(callback: () => void): void {
    for (const part of this.parts) this.push(part);
    callback();
  }
}
