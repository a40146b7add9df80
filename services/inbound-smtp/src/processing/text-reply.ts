/// <reference path="./untyped-modules.d.ts" />
import EmailReplyParser from 'email-reply-parser';
import { convert } from 'html-to-text';
import { withoutQuotedHistory } from './quoted-history';

// The new text of a reply sits at the top; the parser's regular expressions need not see a
// whole novel. Likewise HTML is turned into text only up to this many characters: its parser
// (htmlparser2) takes time quadratic in the nesting depth (60,000 nested <div>s: 1.5 s).
const MAX_REPLY_SOURCE_CHARS = 256 * 1024;
const MAX_HTML_CHARS = 128 * 1024;

// Images say nothing in text; headings keep their case (html-to-text shouts them by default); a
// rule is drawn as a line of dashes that, in a reply, only ever separates the new text from the
// quoted one (Outlook's `<hr>` above "From: … Sent: …").
const HTML_SELECTORS = [
  { selector: 'img', format: 'skip' },
  { selector: 'hr', format: 'skip' },
  ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, format: 'heading', options: { uppercase: false } })),
];

/** Text made from HTML the way a mail client would quote it; used only when there is no text part. */
export function htmlToText(html: string): string {
  return convert(html.slice(0, MAX_HTML_CHARS), { wordwrap: false, selectors: HTML_SELECTORS });
}

function htmlToTextOrNull(html: string): string | null {
  try {
    return htmlToText(html);
  } catch {
    return null;
  }
}

/**
 * The new text of a reply with the quoted history ("On … wrote:", "> " lines) and the
 * signature removed, by email-reply-parser; from `text`, or from text derived from `html` when
 * the message has no text part. Null when the message has neither, or its HTML cannot be read.
 */
export function textReplyOf(text: string | null, html: string | null): string | null {
  const source = text ?? (html === null ? null : htmlToTextOrNull(html));
  if (source === null) return null;
  // The parser takes time quadratic in a run of blank lines (8,000 of them: a second), so runs
  // are folded to one blank line first; a reply's text never needs more.
  const bounded = source
    .slice(0, MAX_REPLY_SOURCE_CHARS)
    .replace(/\r\n?/g, '\n')
    .replace(/\n[ \t]*(?:\n[ \t]*){2,}/g, '\n\n');
  try {
    return new EmailReplyParser().parseReply(withoutQuotedHistory(bounded)).trim();
  } catch {
    return bounded.trim();
  }
}
