import { createPrivateKey, type KeyObject } from 'node:crypto';
import { decryptSecret, normalizeDomain, returnPathDomain } from '@mailroom/core';
import { findSigningDomain, type Queryable } from '@mailroom/db';
import type { DkimKey } from './message/sign-dkim';

/** How mail from a verified domain goes out: signed with its key, bouncing to its return-path subdomain. */
export interface Signing {
  key: DkimKey;
  returnPathDomain: string;
}

// Parsed keys kept, by their sealed form (which changes with every key): parsing a PEM costs more than the lookup.
const MAX_CACHED_KEYS = 1_000;

/**
 * Finds the signing key of an email's From domain when that domain is verified in the email's
 * project (one indexed query per email), else null: the mail goes unsigned, with the
 * BOUNCE_DOMAIN return path. A domain whose records failed is not signed for from its next email on.
 */
export class SigningDomains {
  private readonly keys = new Map<string, KeyObject>();

  constructor(
    private readonly options: {
      db: Queryable;
      /** `deriveKey(SECRET_KEY, 'encryption')`. */
      encryptionKey: Buffer;
      returnPathLabel: string;
    },
  ) {}

  async forEmail(email: { projectId: string; fromAddress: string }): Promise<Signing | null> {
    const name = normalizeDomain(email.fromAddress.slice(email.fromAddress.lastIndexOf('@') + 1));
    if (!name) return null;
    const domain = await findSigningDomain(this.options.db, email.projectId, name);
    if (!domain) return null;
    return {
      key: { domain: domain.name, selector: domain.selector, privateKey: this.privateKey(domain.privateKeyCiphertext) },
      returnPathDomain: returnPathDomain(domain.name, { returnPathLabel: this.options.returnPathLabel }),
    };
  }

  private privateKey(sealed: string): KeyObject {
    let key = this.keys.get(sealed);
    if (!key) {
      key = createPrivateKey(decryptSecret(this.options.encryptionKey, sealed));
      if (this.keys.size >= MAX_CACHED_KEYS) this.keys.clear();
      this.keys.set(sealed, key);
    }
    return key;
  }
}
