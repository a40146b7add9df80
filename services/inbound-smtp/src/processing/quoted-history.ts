// What email-reply-parser misses of the quoted history that mail clients put under a reply; cut
// here first, then the parser removes the rest (English "On … wrote:", "> " lines, signatures).

// The header block Outlook (desktop and web) puts above the message it replies to or forwards,
// in its languages: "From: Bob\nSent: Monday, …" (with or without an address, "*From:*" when
// made from HTML, "De :" in French). Apple Mail's and Gmail's forwards have Date.
const FROM_LABEL = String.raw`From|Von|De|Da|Van|Från|Fra|Frá|Od|От|Від|Lähettäjä|Feladó|Kimden|Apo|Từ|差出人|发件人|寄件者|보낸\s?사람`;
const DATE_LABEL = String.raw`Sent|Date|Gesendet|Datum|Envoyé|Enviad[oa](?:\s(?:el|em))?|Fecha|Inviato|Data|Verzonden|Skickat|Sendt|Wysłano|Odesláno|Отправлено|Надіслано|Lähetetty|Elküldve|Gönderildi|Tarih|Ngày gửi|送信日時|日付|发送时间|發送時間|寄件日期|보낸\s?날짜`;
const SUBJECT_LABEL = `Subject|Betreff|Objet|Asunto|Oggetto|Onderwerp|Assunto|Temat|Тема|Ämne|Emne|件名|主题|主旨|제목`;
const label = (names: string) => new RegExp(String.raw`^\s*[*_]{0,2}(?:${names})[*_]{0,2}\s?[:：]`, 'iu');
const FROM_LINE = label(FROM_LABEL);
const DATE_LINE = label(DATE_LABEL);
const HEADER_LINE = label(`${FROM_LABEL}|${DATE_LABEL}|${SUBJECT_LABEL}`);
// How far below "From:" its date may be (Outlook Express: From, To, Sent; Apple Mail's forward: From, Subject, Date).
const HEADER_BLOCK_REACH = 3;

// A line the history starts at when header lines follow it: "-----Original Message-----",
// "---------- Forwarded message ---------", "-------- Forwarded Message --------" (Thunderbird,
// whose Subject and Date come before From), "-------- Original-Nachricht --------"; Apple Mail's
// "Begin forwarded message:" in its languages.
const SEPARATOR = /^\s*-{2,}[ \t]*[^-\s][^\n]{0,60}?[ \t]*-{2,}\s*$/u;
const FORWARD_INTRO =
  /^\s*(?:Begin forwarded message|Anfang der weitergeleiteten Nachricht|Début du message réexpédié|Inicio del mensaje reenviado|Inizio messaggio inoltrato|Início da mensagem (?:re)?encaminhada|Begin doorgestuurd bericht|Начало переадресованного сообщения|転送されたメッセージ)\s?[:：]\s*$/iu;
const MAX_SEPARATOR_CHARS = 120;

// An attribution line in any language ("2026年11月23日(月) 10:00 Bob <bob@example.com>:", "Bob
// <bob@example.com> schrieb am Mo., 23. Nov. 2026, 10:00:", "Bob Smith wrote:"): it ends with a
// colon and names an address or a time, or ends with the verb "wrote" of a language.
const ENDS_WITH_COLON = /[:：]\s*$/u;
const NAMES_ADDRESS_OR_TIME = /@|\d{1,2}[:.]\d{2}/;
const ENDS_WITH_WROTE =
  /(?:wrote|writes|schrieb|écrit|escribió|scritto|escreveu|schreef|pisze|napisał(?:\(a\))?|napsal(?:\(a\))?|написал(?:\(а\))?|пишет|написав(?:\(ла\))?|skrev|kirjoitti|írta|yazdı|scris|έγραψε|写道|寫道|작성|のメール|のメッセージ)\s?[:：]\s*$/iu;
// A wrapped attribution's first line has its date or time ("On Mon, Nov 23, 2026 at 10:00 AM Bob\n<bob@…> wrote:").
const NAMES_DATE_OR_TIME = /\d{1,2}[:.]\d{2}|\d{4}/;
const ATTRIBUTION_WRAP_LINES = 2;
const QUOTED = /^\s*>/;

/** The text (lines ended by `\n`) up to where its quoted history begins, or all of it (the same string). */
export function withoutQuotedHistory(text: string): string {
  const lines = text.split('\n');
  const cut = historyStart(lines);
  if (cut === null) return text;
  // Separator lines left above the cut: "____…", "-----Original Message-----"; line by line, so
  // a long run of them costs linear time.
  let end = cut;
  while (end > 0 && /^[ \t]*(?:[-_=]{3,}.*)?$/.test(lines[end - 1] as string)) end -= 1;
  return lines.slice(0, end).join('\n');
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
    if (startsHeaderBlock(lines, i)) return i;
    if (line.length <= MAX_SEPARATOR_CHARS && (SEPARATOR.test(line) || FORWARD_INTRO.test(line)) && headerFollows(lines, i)) return i;
    // An attribution over history that is not quoted (Yahoo's HTML): only when it says "wrote"
    // and what follows it is not quoted (an inline reply's attribution is followed by "> ").
    if (i < lastUnquoted && isAttribution(line) && ENDS_WITH_WROTE.test(line) && NAMES_ADDRESS_OR_TIME.test(line) && nextIsUnquoted(lines, i)) {
      return attributionStart(lines, i);
    }
  }
  // The attribution line is the last unquoted one, and quoted lines follow it.
  if (lastUnquoted < 0 || lastUnquoted === lines.length - 1) return null;
  if (!isAttribution(lines[lastUnquoted] as string)) return null;
  return attributionStart(lines, lastUnquoted);
}

/** "From: …" with a dated "Sent:"/"Date:" line (a digit in its value) a few lines below it. */
function startsHeaderBlock(lines: readonly string[], i: number): boolean {
  if (!FROM_LINE.test(lines[i] as string)) return false;
  return lines.slice(i + 1, i + 1 + HEADER_BLOCK_REACH).some((next) => {
    const match = DATE_LINE.exec(next);
    return match !== null && !FROM_LINE.test(next) && /\d/.test(next.slice(match[0].length));
  });
}

/** A header line ("From:", "Subject:", "Date:", quoted or not) among the next two non-blank lines. */
function headerFollows(lines: readonly string[], i: number): boolean {
  let seen = 0;
  for (let j = i + 1; j < lines.length && seen < 2; j += 1) {
    const next = (lines[j] as string).replace(/^\s*>\s?/, '');
    if (next.trim() === '') continue;
    if (HEADER_LINE.test(next)) return true;
    seen += 1;
  }
  return false;
}

function nextIsUnquoted(lines: readonly string[], i: number): boolean {
  for (let j = i + 1; j < lines.length; j += 1) {
    const next = lines[j] as string;
    if (next.trim() !== '') return !QUOTED.test(next);
  }
  return false;
}

function isAttribution(line: string): boolean {
  return ENDS_WITH_COLON.test(line) && (NAMES_ADDRESS_OR_TIME.test(line) || ENDS_WITH_WROTE.test(line));
}

/**
 * Where an attribution wrapped over lines begins: Gmail wraps a long one inside the address
 * ("… Bob <\nbob@example.com>:") or before it, leaving the date on the first line ("On Mon, Nov
 * 23, 2026 at 10:00 AM Bob\n<bob@example.com> wrote:"); up to two lines above, none blank
 * and none ending a sentence.
 */
function attributionStart(lines: readonly string[], at: number): number {
  const previous = lines[at - 1];
  if (previous !== undefined && /[<[]\s*$/.test(previous)) return at - 1;
  if (NAMES_DATE_OR_TIME.test(lines[at] as string)) return at;
  for (let j = at - 1; j >= 0 && j >= at - ATTRIBUTION_WRAP_LINES; j -= 1) {
    const line = lines[j] as string;
    if (line.trim() === '' || QUOTED.test(line) || /[:：.!?。！？]\s*$/u.test(line)) break;
    if (NAMES_DATE_OR_TIME.test(line)) return j;
  }
  return at;
}
