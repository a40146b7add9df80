import { createHmac } from 'node:crypto';
import { safeEqual } from './crypto';
import { isId } from './ids';

const MAC_LENGTH = 12; // hex characters: 48 bits, enough that bounces cannot be forged
// RFC 5321 §4.5.3.1.3: a path of 256 octets with its angle brackets.
const MAX_PATH_ADDRESS = 254;
const RETURN_PATH = /^bounces\+(rcpt_[0-9a-z]{26})-([0-9a-f]{12})@([^@\s]+)$/i;

/**
 * VERP return paths: `bounces+<recipient id>-<mac>@BOUNCE_DOMAIN`. A delivery status
 * notification names the exact recipient it is about, and the MAC (HMAC-SHA256 with the
 * `verp` sub-key, truncated) keeps strangers from forging bounces that would suppress an
 * address. The sender builds these; the inbound MX parses and verifies them (DESIGN §7).
 */
export class Verp {
  /**
   * `key` is `deriveKey(secret, 'verp')`; `bounceDomain` is BOUNCE_DOMAIN; `returnPathLabel`
   * (RETURN_PATH_LABEL) lets `parseAny` take the return-path subdomains of sending domains.
   */
  constructor(
    private readonly key: Buffer,
    private readonly bounceDomain: string,
    private readonly returnPathLabel?: string,
  ) {}

  /**
   * The return path for one recipient, at BOUNCE_DOMAIN unless another domain is given; at
   * BOUNCE_DOMAIN all the same when the address at that domain would pass RFC 5321's 254
   * octets (a sending domain of over about 190), which a receiver may refuse.
   */
  returnPath(recipientId: string, domain = this.bounceDomain): string {
    const local = `bounces+${recipientId}-${this.mac(recipientId)}`;
    const address = `${local}@${domain}`;
    return address.length <= MAX_PATH_ADDRESS ? address : `${local}@${this.bounceDomain}`;
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

  /**
   * `parse` at BOUNCE_DOMAIN or at any `<RETURN_PATH_LABEL>.<domain>`: the return path of mail
   * sent from a domain verified at the time. Whether that domain is verified now does not
   * matter: the MAC alone proves the address is one the sender made, and a bounce refused
   * because a record went missing, or the domain was deleted since, is lost (nobody bounces a bounce).
   */
  parseAny(address: string): string | null {
    const host = RETURN_PATH.exec(stripAddress(address))?.[3]?.toLowerCase();
    if (!host) return null;
    const prefix = this.returnPathLabel ? `${this.returnPathLabel.toLowerCase()}.` : null;
    const atReturnPath = prefix !== null && host.startsWith(prefix) && host.length > prefix.length;
    return this.parse(address, atReturnPath ? [host] : []);
  }

  private mac(recipientId: string): string {
    return createHmac('sha256', this.key).update(recipientId).digest('hex').slice(0, MAC_LENGTH);
  }
}

function stripAddress(address: string): string {
  const trimmed = address.trim();
  return trimmed.startsWith('<') && trimmed.endsWith('>') ? trimmed.slice(1, -1).trim() : trimmed;
}
