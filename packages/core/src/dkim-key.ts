import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const generate = promisify(generateKeyPair);
const RSA_BITS = 2048;
const SELECTOR_PREFIX = 'mr';
const SELECTOR_RANDOM_BYTES = 5;
/** Characters of every selector `generateDkimKey` makes. */
export const DKIM_SELECTOR_LENGTH = SELECTOR_PREFIX.length + 2 * SELECTOR_RANDOM_BYTES;

/** A new DKIM key: its selector, the public key as DNS publishes it and the private key (PKCS#8 PEM). */
export interface NewDkimKey {
  selector: string;
  /** Base64 DER (SPKI): the record's `p=`. */
  publicKey: string;
  privateKeyPem: string;
}

/**
 * An RSA 2048 key (what mailbox providers accept everywhere) with a selector of its own,
 * `mr` and 10 random hex characters, so two projects adding the same domain, and each
 * rotation, publish different records. Generated off the main thread.
 */
export async function generateDkimKey(): Promise<NewDkimKey> {
  const { publicKey, privateKey } = await generate('rsa', {
    modulusLength: RSA_BITS,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { selector: `${SELECTOR_PREFIX}${randomBytes(SELECTOR_RANDOM_BYTES).toString('hex')}`, publicKey: publicKey.toString('base64'), privateKeyPem: privateKey };
}
