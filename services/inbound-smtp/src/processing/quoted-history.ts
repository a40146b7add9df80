// What email-reply-parser misses of the quoted history that mail clients put under a reply; cut
// here first, then the parser removes the rest (English "On … wrote:", "> " lines, signatures).

// The first two lines of the header block Outlook (desktop and web) puts above the message it
// replies to or forwards, in its languages: "From: Bob\nSent: Monday, …" (with or without an
// address, "*From:*" when made from HTML, "De :" in French). Apple Mail's forwards have Date.
const FROM_LABEL = String.raw`From|Von|De|Da|Van|Från|Fra|Frá|Od|От|Від|Lähettäjä|Feladó|Kimden|Apo|Từ|差出人|发件人|寄件者|보낸\s?사람`;
const SENT_LABEL = String.raw`Sent|Date|Gesendet|Datum|Envoyé|Enviado|Fecha|Inviato|Data|Verzonden|Skickat|Sendt|Wysłano|Odesláno|Отправлено|Надіслано|Lähetetty|Elküldve|Gönderildi|Tarih|Ngày gửi|送信日時|日付|发送时间|發送時間|寄件日期|보낸\s?날짜|Subject|Betreff|Objet|Asunto|Oggetto|Onderwerp|件名|主题|主旨`;
const label = (names: string) => new RegExp(String.raw`^\s*[*_]{0,2}(?:${names})[*_]{0,2}\s?[:：]`, 'iu');
const FROM_LINE = label(FROM_LABEL);
const SENT_LINE = label(SENT_LABEL);
// How far below "From:" its "Sent:" may be (Apple Mail's forward: From, Subject, Date).
const HEADER_BLOCK_REACH = 3;

// An attribution line in any language ("2026年11月23日(月) 10:00 Bob <bob@example.com>:", "Bob
// <bob@example.com> schrieb am Mo., 23. Nov. 2026, 10:00:", "2026/11/23 10:00、Bob <…>のメール:"):
// it ends with a colon and names an address or a time, and only quoted lines follow it.
const ENDS_WITH_COLON = /[:：]\s*$/u;
const NAMES_ADDRESS_OR_TIME = /@|\d{1,2}[:.]\d{2}/;
const QUOTED = /^\s*>/;
// Separator lines left above the cut: "____…", "-----Original Message-----", "---------- Forwarded message ---------".
const TRAILING_SEPARATORS = /(?:\n[ \t]*(?:[-_=]{3,}[^\n]*)?)+$/;

/** The text (lines ended by `\n`) up to where its quoted history begins, or all of it. */
export function withoutQuotedHistory(text: string): string {
  const lines = text.split('\n');
  const cut = historyStart(lines);
  if (cut === null) return text;
  return lines.slice(0, cut).join('\n').replace(TRAILING_SEPARATORS, '');
}

function historyStart(lines: readonly string[]): number | null {
  let lastUnquoted = -1;
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const line = lines[i] as string;
    if (line.trim() !== '' && !QUOTED.test(line)) {
      lastUnquoted = i;
      break;
    }
  }
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] as string;
    if (FROM_LINE.test(line) && lines.slice(i + 1, i + 1 + HEADER_BLOCK_REACH).some((next) => SENT_LINE.test(next) && !FROM_LINE.test(next))) return i;
  }
  // The attribution line is the last unquoted one, and quoted lines follow it.
  if (lastUnquoted < 0 || lastUnquoted === lines.length - 1) return null;
  const attribution = lines[lastUnquoted] as string;
  if (!ENDS_WITH_COLON.test(attribution) || !NAMES_ADDRESS_OR_TIME.test(attribution)) return null;
  // Gmail wraps a long attribution inside the address: "… Bob <\nbob@example.com>:".
  const previous = lines[lastUnquoted - 1];
  return previous !== undefined && /[<[]\s*$/.test(previous) ? lastUnquoted - 1 : lastUnquoted;
}
