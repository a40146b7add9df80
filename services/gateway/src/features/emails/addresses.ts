import addressparser from 'nodemailer/lib/addressparser';
import { z } from 'zod';

const MAX_RECIPIENTS = 50;
const emailAddress = z.email();
// The common forms, "a@x" and "Plain Name <a@x>", with nothing addressparser would read
// specially (quotes, comments, commas, groups, runs of spaces), are taken as they are.
const ATEXT = "[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+";
const PLAIN_ADDRESS = new RegExp(`^${ATEXT}@[A-Za-z0-9.-]+$`);
const PLAIN_NAMED = new RegExp(`^(${ATEXT}(?: ${ATEXT})*) <(${ATEXT}@[A-Za-z0-9.-]+)>$`);

export interface Mailbox {
  name: string;
  address: string;
}

/** Parses exactly one mailbox, "a@x" or "Name <a@x>". Null when it is not one valid address. */
export function parseMailbox(value: string): Mailbox | null {
  if (PLAIN_ADDRESS.test(value)) return isAddress(value) ? { name: '', address: value } : null;
  const named = PLAIN_NAMED.exec(value);
  if (named) return isAddress(named[2] as string) ? { name: named[1] as string, address: named[2] as string } : null;
  if (/[\r\n\0]/.test(value)) return null;
  const parsed = addressparser(value, { flatten: true });
  const [only] = parsed;
  if (parsed.length !== 1 || !only?.address) return null;
  if (!isAddress(only.address)) return null;
  return { name: only.name ?? '', address: only.address };
}

function isAddress(address: string): boolean {
  return address.length <= 254 && emailAddress.safeParse(address).success;
}

/** A mailbox as given (for headers) and its bare address (for the envelope). */
export interface ParsedMailbox {
  text: string;
  address: string;
}

/** A field holding one mailbox, parsed once: the original text is kept for the header. */
export const mailboxField = z
  .string()
  .max(998)
  .transform((text, ctx): ParsedMailbox => {
    const mailbox = parseMailbox(text);
    if (!mailbox) {
      ctx.addIssue({ code: 'custom', message: 'must be one email address, "a@example.com" or "Name <a@example.com>"' });
      return z.NEVER;
    }
    return { text, address: mailbox.address };
  });

/** A field holding one mailbox or an array of them; always an array after parsing. */
export const mailboxListField = z
  .union([mailboxField, z.array(mailboxField).max(MAX_RECIPIENTS, `at most ${MAX_RECIPIENTS} addresses`)])
  .transform((value) => (Array.isArray(value) ? value : [value]));

export { MAX_RECIPIENTS };
