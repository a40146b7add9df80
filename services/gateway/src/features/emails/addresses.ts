import { normalizeDomain } from '@mailroom/core';
import addressparser from 'nodemailer/lib/addressparser';
import { z } from 'zod';

const MAX_RECIPIENTS = 50;
// zod's email pattern, with a punycode top-level domain (`xn--p1ai`, .рф) allowed beside letters.
const emailAddress = z.email({ pattern: /^(?!\.)(?!.*\.\.)([A-Za-z0-9_'+\-.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9-]*\.)+(?:[A-Za-z]{2,}|xn--[A-Za-z0-9-]{2,59})$/ });
// The common forms, "a@x" and "Plain Name <a@x>", with nothing addressparser would read
// specially (quotes, comments, commas, groups, runs of spaces), are taken as they are.
const ATEXT = "[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+";
const PLAIN_ADDRESS = new RegExp(`^${ATEXT}@[A-Za-z0-9.-]+$`);
const PLAIN_NAMED = new RegExp(`^(${ATEXT}(?: ${ATEXT})*) <(${ATEXT}@[A-Za-z0-9.-]+)>$`);

export interface Mailbox {
  name: string;
  address: string;
}

// The stricter forms, checked in linear time (no overlapping repetitions): a display name that
// is a quoted string, or a phrase without RFC 5322 specials (so no comments, groups, lists or
// second addresses), in either case without "<", ">" or "@" that could pass for another
// address; then one <address>. Anything else is refused, even where a lenient parser would
// find one address in it: what the header shows must be where the mail goes.
const QUOTED_NAMED = /^"((?:[^"\\<>@\p{Cc}]|\\[^<>@\p{Cc}])*)"\s*<([^<>\s]+)>$/u;
const PHRASE_NAMED = /^([^"(),:;<>@[\\\]\p{Cc}]*)<([^<>\s]+)>$/u;
const BARE_ADDRESS = /^[^<>\s"(),:;[\\\]]+$/;

/**
 * Parses exactly one mailbox, "a@x" or "Name <a@x>". Null when it is not exactly one valid
 * address. An internationalized domain is allowed and comes back in its ASCII (punycode) form,
 * which the envelope, DNS and suppressions use; the local part must be ASCII.
 */
export function parseMailbox(value: string): Mailbox | null {
  if (PLAIN_ADDRESS.test(value)) return isAddress(value) ? { name: '', address: value } : null;
  const named = PLAIN_NAMED.exec(value);
  if (named) return isAddress(named[2] as string) ? { name: named[1] as string, address: named[2] as string } : null;
  // Line breaks would end the header; no other control character belongs in one either.
  if (/\p{Cc}/u.test(value)) return null;
  const mailbox = parseStrictMailbox(value.trim());
  if (!mailbox) return null;
  // Nodemailer reads the header again when sending: it must find this same, single address.
  const parsed = addressparser(value, { flatten: true });
  if (parsed.length !== 1 || parsed[0]?.address !== mailbox.address) return null;
  const address = withAsciiDomain(mailbox.address);
  return address !== null && isAddress(address) ? { name: mailbox.name, address } : null;
}

/** The address with its domain in ASCII (punycode) form, as recipients are stored; null when the domain is not one. */
export function withAsciiDomain(address: string): string | null {
  const at = address.lastIndexOf('@');
  const domain = address.slice(at + 1);
  // ASCII already: nothing to convert (z.email judges it). A trailing dot is refused as for ASCII.
  if (!/[^\x20-\x7e]/.test(domain)) return address;
  const ascii = domain.endsWith('.') ? null : normalizeDomain(domain);
  return at > 0 && ascii ? `${address.slice(0, at)}@${ascii}` : null;
}

function parseStrictMailbox(value: string): Mailbox | null {
  let name: string;
  let address: string;
  const quoted = QUOTED_NAMED.exec(value);
  const phrase = quoted ? null : PHRASE_NAMED.exec(value);
  if (quoted) {
    name = (quoted[1] as string).replace(/\\(.)/g, '$1');
    address = quoted[2] as string;
  } else if (phrase) {
    name = (phrase[1] as string).trim();
    address = phrase[2] as string;
  } else if (BARE_ADDRESS.test(value)) {
    name = '';
    address = value;
  } else {
    return null;
  }
  return { name, address };
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
