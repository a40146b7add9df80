import { createPrivateKey, type KeyObject } from 'node:crypto';
import { decryptSecret, normalizeDomain, returnPathDomain } from '@mailroom/core';
import { findSigningDomains, type Queryable } from '@mailroom/db';
import type { DkimKey } from './message/sign-dkim';

/** How mail from a verified domain goes out: signed with its key, bouncing to its return-path subdomain. */
export interface Signing {
  key: DkimKey;
  returnPathDomain: string;
}

// Parsed keys kept, by their sealed form (which changes with every key): parsing a PEM costs more than the lookup.
const MAX_CACHED_KEYS = 1_000;

/** What the signing lookup needs of an email. */
export interface SignedEmail {
  id: string;
  projectId: string;
  fromAddress: string;
}

/**
 * Finds the signing key of each email's From domain when that domain is verified in the
 * email's project (one indexed query for all the emails of a send job); an email without one
 * goes unsigned, with the BOUNCE_DOMAIN return path. A domain whose records failed is not
 * signed for from its next job on.
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

  /** The signing of each email that has one, by email id. */
  async forEmails(emails: readonly SignedEmail[]): Promise<Map<string, Signing>> {
    const wanted = emails.flatMap((email) => {
      const name = normalizeDomain(email.fromAddress.slice(email.fromAddress.lastIndexOf('@') + 1));
      return name ? [{ email, key: { projectId: email.projectId, name } }] : [];
    });
    const unique = [...new Map(wanted.map((w) => [JSON.stringify([w.key.projectId, w.key.name]), w.key])).values()];
    const found = new Map<string, Signing>();
    for (const domain of await findSigningDomains(this.options.db, unique)) {
      found.set(JSON.stringify([domain.projectId, domain.name]), {
        key: { domain: domain.name, selector: domain.selector, privateKey: this.privateKey(domain.privateKeyCiphertext) },
        returnPathDomain: returnPathDomain(domain.name, { returnPathLabel: this.options.returnPathLabel }),
      });
    }
    const signings = new Map<string, Signing>();
    for (const { email, key } of wanted) {
      const signing = found.get(JSON.stringify([key.projectId, key.name]));
      if (signing) signings.set(email.id, signing);
    }
    return signings;
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
