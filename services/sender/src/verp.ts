import { createHmac } from 'node:crypto';
import { safeEqual } from '@mailroom/core';

const MAC_LENGTH = 12; // hex characters: 48 bits, enough that bounces cannot be forged

/**
 * VERP return paths: `bounces+<recipient id>-<mac>@BOUNCE_DOMAIN`. A delivery status
 * notification names the exact recipient it is about, and the MAC keeps strangers from
 * forging bounces that would suppress an address.
 */
export class Verp {
  constructor(private readonly key: Buffer, private readonly bounceDomain: string) {}

  returnPath(recipientId: string): string {
    return `bounces+${recipientId}-${this.mac(recipientId)}@${this.bounceDomain}`;
  }

  /** The recipient id a return path names, or null if it is not one of ours. Case-insensitive, as MTAs may fold case. */
  parse(address: string): string | null {
    const match = /^bounces\+(rcpt_[0-9a-z]{26})-([0-9a-f]{12})@(.+)$/i.exec(address.trim());
    if (!match?.[1] || !match[2] || match[3]?.toLowerCase() !== this.bounceDomain.toLowerCase()) return null;
    const recipientId = `rcpt_${match[1].slice(5).toUpperCase()}`;
    return safeEqual(this.mac(recipientId), match[2].toLowerCase()) ? recipientId : null;
  }

  private mac(recipientId: string): string {
    return createHmac('sha256', this.key).update(recipientId).digest('hex').slice(0, MAC_LENGTH);
  }
}
