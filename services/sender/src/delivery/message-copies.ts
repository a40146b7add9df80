import { downgradeTo7Bit } from '../message/downgrade-to-7bit';
import type { RawMessage } from './raw-message';

/** Signs a message about to go out (DKIM), e.g. MessageSigner.sign. */
export type SignMessage = (raw: Buffer | RawMessage) => Promise<RawMessage>;

/**
 * The copies of one message that may go out, each made on first need, once, and signed last:
 * the message as built, and its 7-bit copy for a next hop that offers no 8BITMIME
 * ({@link downgradeTo7Bit}). Signing after the downgrade is what keeps the copy's signature
 * valid: its body is not the original's.
 */
export class MessageCopies {
  private built: Promise<Buffer | RawMessage> | null = null;
  private sevenBitCopy: Promise<Buffer | RawMessage> | null = null;

  constructor(
    private readonly raw: Buffer | RawMessage,
    private readonly sign?: SignMessage,
  ) {}

  /** The message as built, signed. */
  asBuilt(): Promise<Buffer | RawMessage> {
    this.built ??= this.signed(this.raw);
    return this.built;
  }

  /** The 7-bit copy, signed; rejects with CannotDowngradeError when there can be none. */
  sevenBit(): Promise<Buffer | RawMessage> {
    this.sevenBitCopy ??= downgradeTo7Bit(this.raw).then((copy) => this.signed(copy));
    return this.sevenBitCopy;
  }

  private signed(raw: Buffer | RawMessage): Promise<Buffer | RawMessage> {
    return this.sign ? this.sign(raw) : Promise.resolve(raw);
  }
}
