import { createHmac } from 'node:crypto';
import { safeEqual } from './crypto';
import { isId } from './ids';

const MAC_LENGTH = 12; // hex characters: 48 bits, enough that bounces cannot be forged
const RETURN_PATH = /^bounces\+(rcpt_[0-9a-z]{26})-([0-9a-f]{12})@([^@\s]+)$/i;

/**
 * VERP return paths: `bounces+<recipient id>-<mac>@BOUNCE_DOMAIN`. A delivery status
 * notification names the exact recipient it is about, and the MAC (HMAC-SHA256 with the
 * `verp` sub-key, truncated) keeps strangers from forging bounces that would suppress an
 * address. The sender builds these; the inbound MX parses and verifies them (DESIGN §7).
 */
export class Verp {
  /** `key` is `deriveKey(secret, 'verp')`; `bounceDomain` is BOUNCE_DOMAIN. */
  constructor(
    private readonly key: Buffer,
    private readonly bounceDomain: string,
  ) {}

  /** The return path for one recipient, at BOUNCE_DOMAIN unless another domain is given. */
  returnPath(recipientId: string, domain = this.bounceDomain): string {
    return `bounces+${recipientId}-${this.mac(recipientId)}@${domain}`;
  }

  /**
   * The recipient id a return path names, or null if it is not one of ours. Case-insensitive,
   * as MTAs may fold case; surrounding whitespace and angle brackets are ignored. The domain
   * must be BOUNCE_DOMAIN or one of `otherDomains` (a verified domain's return-path subdomain).
   */
  parse(address: string, otherDomains: readonly string[] = []): string | null {
    const match = RETURN_PATH.exec(stripAddress(address));
    if (!match?.[1] || !match[2] || !match[3]) return null;
    const domain = match[3].toLowerCase();
    if (![this.bounceDomain, ...otherDomains].some((d) => d.toLowerCase() === domain)) return null;
    const recipientId = `rcpt_${match[1].slice(5).toUpperCase()}`;
    if (!isId('recipient', recipientId)) return null;
    return safeEqual(this.mac(recipientId), match[2].toLowerCase()) ? recipientId : null;
  }

  private mac(recipientId: string): string {
    return createHmac('sha256', this.key).update(recipientId).digest('hex').slice(0, MAC_LENGTH);
  }
}

function stripAddress(address: string): string {
  const trimmed = address.trim();
  return trimmed.startsWith('<') && trimmed.endsWith('>') ? trimmed.slice(1, -1).trim() : trimmed;
}
