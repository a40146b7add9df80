import addressparser from 'nodemailer/lib/addressparser';
import { z } from 'zod';

const MAX_RECIPIENTS = 50;
const emailAddress = z.email();

export interface Mailbox {
  name: string;
  address: string;
}

/** Parses exactly one mailbox, "a@x" or "Name <a@x>". Null when it is not one valid address. */
export function parseMailbox(value: string): Mailbox | null {
  if (/[\r\n\0]/.test(value)) return null;
  const parsed = addressparser(value, { flatten: true });
  const [only] = parsed;
  if (parsed.length !== 1 || !only?.address) return null;
  if (only.address.length > 254 || !emailAddress.safeParse(only.address).success) return null;
  return { name: only.name ?? '', address: only.address };
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
