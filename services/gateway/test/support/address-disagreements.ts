import type { AllowedDisagreement } from '../../../../test/support/allowed-disagreements';

const COMMENTS = 'README: an address field holds no comments (422); Python reads CFWS as RFC 5322 §3.2.2 allows';
const CFWS_IN_ADDRESS = 'white space inside the address is RFC 5322 CFWS, which we refuse (README: `a@x`, `<a@x>` or `Name <a@x>`) so header and envelope read the same';
const ENCODED_WORD = 'an API field is text, not a MIME header: a typed "=?…?=" is literal (README "What is sent is what is read"); Python decodes it as a raw header';
const OBS_PHRASE = 'a "." in an unquoted name is RFC 5322 obs-phrase (§4.1), which a reader must accept; Python flags it as a defect, nodemailer writes the name quoted';
const NO_SPOOF = 'deliberate: a name holding "@", "<" or ">" could pass for another address, refused so what the header shows is where the mail goes';
const IDNA_SYMBOL = 'deliberate: domains are converted by UTS #46 (nontransitional, as WHATWG URL and browsers), which admits symbols IDNA 2008 disallows; such domains (e.g. under .ws) resolve and take mail';
const SMTPUTF8 = 'README: an internationalized local part is 422, delivering it needs SMTPUTF8 on every hop (RFC 6531)';
const TLD = 'deliberate: no top-level domain is one letter or holds a digit (RFC 1123 §2.1, ICANN); refusing catches typos; email_validator 1.3 checks syntax only';
const CONTROL = 'deliberate: an address field holds no control character, tab included (one rule for header text); a client sends spaces';

/**
 * Where parseMailbox and the independent judges (Python's headerregistry with email_validator)
 * disagree on a corpus input, and why we are right or the choice is ours. Fields: `accepted`,
 * `address` (the normalised address), `name` (the display name).
 */
export const ALLOWED_ADDRESS_DISAGREEMENTS: readonly AllowedDisagreement[] = [
  { message: 'angle with space inside', fields: ['accepted'], reason: CFWS_IN_ADDRESS },
  { message: 'space before at', fields: ['accepted'], reason: CFWS_IN_ADDRESS },
  { message: 'space after at', fields: ['accepted'], reason: CFWS_IN_ADDRESS },
  { message: 'trailing comma', fields: ['accepted'], reason: 'README: exactly one mailbox, no lists; an empty list element is RFC 5322 obs-addr-list (§4.4), which Python tolerates' },
  { message: 'named initials with dots', fields: ['accepted'], reason: OBS_PHRASE },
  { message: 'unquoted name with dot', fields: ['accepted'], reason: OBS_PHRASE },
  { message: 'quoted name with at sign', fields: ['accepted'], reason: NO_SPOOF },
  { message: 'quoted name with angle brackets', fields: ['accepted'], reason: NO_SPOOF },
  { message: 'unquoted name with parentheses', fields: ['accepted'], reason: COMMENTS },
  { message: 'unquoted name with quote inside', fields: ['accepted'], reason: 'deliberate: a name mixing bare words and a quoted-string is refused rather than read one of two ways (addressparser keeps the quotes, Python drops them); a client quotes the whole name' },
  { message: 'encoded word name', fields: ['name'], reason: ENCODED_WORD },
  { message: 'encoded word base64 name', fields: ['name'], reason: ENCODED_WORD },
  { message: 'quoted encoded word name', fields: ['accepted'], reason: 'RFC 2047 §5(3): no encoded-word inside a quoted-string, so it is literal text; Python reports a defect' },
  { message: 'name with tab', fields: ['accepted'], reason: CONTROL },
  { message: 'leading tab', fields: ['accepted'], reason: CONTROL },
  { message: 'C1 control in name', fields: ['accepted'], reason: 'U+0085 is a control character, no text for a display name; Python takes any non-ASCII character' },
  { message: 'comment after', fields: ['accepted'], reason: COMMENTS },
  { message: 'comment before', fields: ['accepted'], reason: COMMENTS },
  { message: 'comment in local', fields: ['accepted'], reason: COMMENTS },
  { message: 'comment in domain', fields: ['accepted'], reason: COMMENTS },
  { message: 'comment after angle', fields: ['accepted'], reason: COMMENTS },
  { message: 'comment with address', fields: ['accepted'], reason: COMMENTS },
  { message: 'nested comment', fields: ['accepted'], reason: COMMENTS },
  { message: 'quoted simple local', fields: ['accepted'], reason: 'README: a quoted local part is 422 (even one that needs no quotes); Python unquotes it' },
  { message: 'double hyphen in third position', fields: ['accepted'], reason: 'an ASCII label with "--" in positions 3–4 is RFC 5321 LDH syntax; IDNA 2008 (RFC 5890 §2.3.1) only reserves it, and UTS #46 with CheckHyphens off (WHATWG URL) takes it' },
  { message: 'one-letter TLD', fields: ['accepted'], reason: TLD },
  { message: 'TLD with digit', fields: ['accepted'], reason: TLD },
  { message: 'IDN emoji', fields: ['accepted'], reason: IDNA_SYMBOL },
  { message: 'IDN symbol', fields: ['accepted'], reason: IDNA_SYMBOL },
  { message: 'IDN Hebrew beside a digit-led label', fields: ['accepted'], reason: 'RFC 5893 §2: the Bidi rule applies to every label of a Bidi domain name (one with an RTL label), and rule 1 refuses a label that starts with a digit, as UTS #46 CheckBidi does; Python’s idna checks only the labels that hold RTL characters' },
  { message: 'UTF-8 local', fields: ['accepted'], reason: SMTPUTF8 },
  { message: 'UTF-8 local cyrillic', fields: ['accepted'], reason: SMTPUTF8 },
  { message: 'UTF-8 local and domain', fields: ['accepted'], reason: SMTPUTF8 },
  { message: 'UTF-8 local CJK', fields: ['accepted'], reason: SMTPUTF8 },
  { message: 'UTF-8 local named', fields: ['accepted'], reason: SMTPUTF8 },
  { message: 'UTF-8 local emoji', fields: ['accepted'], reason: SMTPUTF8 },
];
