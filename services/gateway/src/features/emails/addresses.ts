import { hasTopLevelLabel, normalizeDomain } from '@mailroom/core';
import addressparser from 'nodemailer/lib/addressparser';
import { z } from 'zod';

const MAX_RECIPIENTS = 50;
// RFC 5321 §4.5.3.1, in octets (the local part is ASCII here, so characters): a local part of
// 64, a whole address of 254 (a path of 256 with its angle brackets).
const MAX_LOCAL = 64;
const MAX_ADDRESS = 254;
// The common forms, "a@x" and "Plain Name <a@x>", with nothing addressparser would read
// specially (quotes, comments, commas, groups, runs of spaces), are taken as they are.
const ATEXT = "[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+";
const PLAIN_ADDRESS = new RegExp(`^${ATEXT}@[A-Za-z0-9.-]+$`);
const PLAIN_NAMED = new RegExp(`^(${ATEXT}(?: ${ATEXT})*) <(${ATEXT}@[A-Za-z0-9.-]+)>$`);
// RFC 5322 §3.4.1's dot-atom local part: atext runs joined by single dots (none first or last).
const DOT_ATOM_LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;

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
  if (PLAIN_ADDRESS.test(value)) return checked('', value);
  const named = PLAIN_NAMED.exec(value);
  if (named) return checked(named[1] as string, named[2] as string);
  // Line breaks would end the header; no other control character belongs in one either.
  if (/\p{Cc}/u.test(value)) return null;
  const mailbox = parseStrictMailbox(value.trim());
  if (!mailbox) return null;
  // Nodemailer reads the header again when sending: it must find this same, single address.
  const parsed = addressparser(value, { flatten: true });
  if (parsed.length !== 1 || parsed[0]?.address !== mailbox.address) return null;
  return checked(mailbox.name, mailbox.address);
}

// An RFC 2047 encoded word. One is valid atext, but RFC 2047 §5 forbids it in an addr-spec, and
// nodemailer decodes it when it reads the envelope: `=?utf-8?B?8J+QiA==?=@x` went out as
// `RCPT TO:<🐈@x>`, another mailbox than the one accepted.
const ENCODED_WORD = /=\?[^?\s]+\?[bq]\?[^?\s]*\?=/i;

/** The mailbox with its domain in ASCII form, when that is a valid address (and no encoded word, which the envelope would not keep). */
function checked(name: string, address: string): Mailbox | null {
  if (ENCODED_WORD.test(address)) return null;
  const ascii = withAsciiDomain(address);
  return ascii !== null && isAddress(ascii) ? { name, address: ascii } : null;
}

/** The address with its domain in ASCII (punycode) form, as recipients are stored; null when the domain is not one. */
export function withAsciiDomain(address: string): string | null {
  const at = address.lastIndexOf('@');
  const domain = address.slice(at + 1);
  // ASCII without an A-label: nothing to convert (isAddress judges it). One with an A-label is
  // lower-cased as nodemailer writes it (`XN--P1AI` → `xn--p1ai`). A trailing dot is refused as for ASCII.
  if (!/[^\x20-\x7e]/.test(domain) && !/(?:^|\.)xn--/i.test(domain)) return address;
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
    // Runs of white space between a phrase's words are one space (RFC 5322 §3.2.2).
    name = (phrase[1] as string).trim().replace(/ {2,}/g, ' ');
    address = phrase[2] as string;
  } else if (BARE_ADDRESS.test(value)) {
    name = '';
    address = value;
  } else {
    return null;
  }
  return { name, address };
}

/**
 * An ASCII `local@domain` as RFC 5321 §4.1.2 takes it without quotes: a dot-atom local part of
 * at most 64 octets, and a host name whose labels are letters, digits and inner hyphens of at
 * most 63 octets (RFC 1035 §2.3.4), with an A-label only when it decodes (RFC 5891 §5.4).
 */
function isAddress(address: string): boolean {
  const at = address.lastIndexOf('@');
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (at <= 0 || address.length > MAX_ADDRESS || local.length > MAX_LOCAL || !DOT_ATOM_LOCAL.test(local)) return false;
  if (/[^A-Za-z0-9.-]/.test(domain) || domain.endsWith('.')) return false;
  // normalizeDomain judges the labels (UTS #46, as the domain is also looked up), and an
  // A-label that is not valid punycode makes it refuse the whole domain.
  return normalizeDomain(domain) !== null && hasTopLevelLabel(domain);
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
