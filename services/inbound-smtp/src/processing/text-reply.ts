/// <reference path="./untyped-modules.d.ts" />
import EmailReplyParser from 'email-reply-parser';
import parserPatterns from 'email-reply-parser/lib/regex';
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

// The line a phone or mail app puts under the text ("Sent from my iPhone", "Von meinem iPhone
// gesendet", "Отправлено с iPhone", "Inviato da iPhone", "iPhoneから送信", "发自我的iPhone",
// "iPhone에서 보냄", "Get Outlook for Android"), naming a device or mail app; a line that goes on
// after a comma or a question is a sentence ("Sent from my iPhone app, the upload fails.").
const DEVICE = `iPhone|iPad|Android|Galaxy|Samsung|Huawei|Xiaomi|Pixel|BlackBerry|Outlook|Mail|Spark|mobile|móvil|celular|cellulare|Handy|phone|telefon|телефон|tablet|Yahoo|Gmail|AOL|Proton|iOS|手机|手機|携帯|スマートフォン|휴대폰|갤럭시`;
const TAIL = `[^,;!?，。]{0,30}`;
const MOBILE_SIGNATURE = new RegExp(
  String.raw`^\s*(?:` +
    [
      String.raw`(?:Sent|Envoyé|Enviado|Enviada|Inviato|Verzonden|Verstuurd|Gesendet|Skickat|Sendt|Lähetetty|Wysłane|Odesláno|Отправлено|Надіслано|Gönderildi)\s(?:from|with|via|de|depuis|à partir de|desde|do|da|dal|dalla|vanaf|met|von|mit|från|fra|z|ze|с|со|з|із)\s.{0,40}?(?:${DEVICE})${TAIL}`,
      `Von meinem .{0,40}?(?:${DEVICE})${TAIL} gesendet`,
      `(?:Get|Obtenir|Télécharger|Obtener|Scarica|Baixe|Hol dir) Outlook .{0,60}`,
      String.raw`(?:发自|發自|来自|來自|從)我的\s?.{0,20}?(?:${DEVICE})${TAIL}`,
      `.{0,30}?(?:${DEVICE})${TAIL}(?:から送信|에서 보냄|傳送)`,
    ].join('|') +
    String.raw`)\.?\s*$`,
  'iu',
);

// The parser takes the first line matching one of its signature patterns for the start of a
// signature, and hides it and every line below it up to the quoted history. Some of its
// patterns are a sign-off ("Cheers!", "Best regards,", "Cordialement"), or "Sent from" followed
// by anything: "Hi,\nSent from the warehouse on Monday.\nIt arrives Friday." kept only "Hi,".
// Only a delimiter ("-- ") or a mobile signature says where a signature begins: the patterns that
// take these lines for one go, and MOBILE_SIGNATURE takes the place of the mobile ones.
const NOT_SIGNATURES = [
  'Cheers,',
  'Best wishes',
  'Kind regards,',
  'Cordialement',
  'Bien à vous',
  'Bonne journée',
  'Sent from the warehouse on Monday.',
  'Envoyé de mon bureau à Lyon',
  'Envoyé depuis Lyon hier.',
  'Envoyé à partir de Lyon',
  'Enviado desde la oficina central',
  'Von Bob gesendet',
  'Gesendet von Bob für Ada',
  'Sendt fra kontoret',
  'Verzonden vanaf kantoor',
  'Verstuurd vanaf kantoor',
];
parserPatterns.signatureRegex = [
  ...parserPatterns.signatureRegex.filter((pattern) => !NOT_SIGNATURES.some((line) => pattern.test(line))),
  MOBILE_SIGNATURE,
];

// Marks "> " lines above the quoted history so the parser keeps them (see textReplyOf).
const KEEP_QUOTE = '\u{E000}';

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
 * signature (under "-- ", or a mobile one) removed, by email-reply-parser after withoutQuotedHistory; from `text`, or from text derived from `html` when
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
    // Above the history cut here everything is the writer's new text: a "> " line there is an
    // excerpt they quote in it (a log line, a sentence to answer), not the history, so the
    // parser, which hides every quoted line, is kept from seeing it as quoted.
    const kept = withoutQuotedHistory(bounded);
    const marked = kept === bounded ? kept : kept.replace(/^>/gm, `${KEEP_QUOTE}>`);
    const reply = new EmailReplyParser().parseReply(marked).replaceAll(KEEP_QUOTE, '').trim();
    // A reply of only a mobile signature (an attachment sent from a phone) has no text.
    return MOBILE_SIGNATURE.test(reply) ? '' : reply;
  } catch {
    return bounded.trim();
  }
}

