import { encodeWord } from 'nodemailer/lib/mime-funcs';
import MimeNode from 'nodemailer/lib/mime-node';

/**
 * What decoders read as an RFC 2047 encoded-word: libmime and Python also decode one whose
 * encoded text holds white space (nodemailer's own lenient pattern).
 */
export const ENCODED_WORD_LOOKALIKE = /=\?[^?]*\?[BbQq]\?[^?]*\?=/;
// White space a phrase would not keep: a run of it (RFC 5322 §3.2.2, §3.2.5).
const WHITE_SPACE_RUN = /\s{2}/;

/**
 * How a display name that nodemailer would write as given must be written instead for readers
 * to read it back as given, or null when nodemailer's own way is right. Printable ASCII
 * nodemailer writes as an atom phrase, or quoted when it holds specials; but
 * - a name holding what reads as an encoded-word (`"=?utf-8?q?x?= Team"`) is decoded by every
 *   common reader (Python's email, mailparser) even inside quotes, which RFC 2047 §5 forbids but
 *   all of them do: it goes out as encoded-words of the whole name, which decode back exactly;
 * - a name with a run of spaces loses it as an unquoted phrase (a reader sees one space): it is
 *   quoted, where white space is kept (and a fold inside the quotes takes none of it away).
 */
export function addressNameText(name: string): string | null {
  if (!/^[\x20-\x7e]*$/.test(name)) return null;
  if (ENCODED_WORD_LOOKALIKE.test(name)) return encodeWord(name, 'Q', 52);
  if (WHITE_SPACE_RUN.test(name)) return `"${name.replace(/["\\]/g, '\\$&')}"`;
  return null;
}

type NameEncoder = (this: unknown, name: string) => string;
const prototype = MimeNode.prototype as unknown as { _encodeAddressName: NameEncoder & { mailroom?: true } };

/**
 * Applies addressNameText to every address header nodemailer writes (From, To, Cc, Reply-To) in
 * this process: its one place for display names is MimeNode's `_encodeAddressName`, which
 * MailComposer's nodes all use. Done once, when the message builder is loaded.
 */
export function useReadableAddressNames(): void {
  const original = prototype._encodeAddressName;
  if (original.mailroom) return;
  const encode: NameEncoder & { mailroom?: true } = function (this: unknown, name: string) {
    return addressNameText(name) ?? original.call(this, name);
  };
  encode.mailroom = true;
  prototype._encodeAddressName = encode;
}
