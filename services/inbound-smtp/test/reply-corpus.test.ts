import { join } from 'node:path';
import { parseMessage } from '../src/processing/parse-message';
import { corpusMessages } from './processing-support';

const CORPUS = join(__dirname, 'reply-corpus');

/**
 * Replies as mail clients write them (Gmail web and mobile, Outlook desktop and web, Apple
 * Mail, Thunderbird, Yahoo; in many languages; plain text and HTML only), and the new text a
 * person reading each would see: `textReply` without the quoted history, and without the
 * signature where a "-- " delimiter or a known mobile signature marks it. Every .eml has CRLF
 * line ends, as sent; 45 also has them inside its base64 text.
 */
const EXPECTED: Record<string, string> = {
  // Gmail web, text and HTML alternative: the text part counts. A sign-off without a delimiter
  // ("Thanks,\nAda") is part of the text.
  '01-gmail-en-web': "Sure, I'll send it on Thursday.\n\nThanks,\nAda",
  '02-gmail-en-attribution-wrapped-two-lines': "Done, it is in the shared folder.",
  // Gmail wraps a long attribution; here over three lines, the last only "wrote:".
  '03-gmail-en-attribution-wrapped-three-lines': "Yes, Friday works.",
  '04-gmail-en-mobile': "Will do!",
  // Gmail wraps inside the address: "… schrieb Bob <\nbob@…>:".
  '05-gmail-de-wrapped-in-address': "Mache ich, bis Freitag.\n\nGruß\nAda",
  '06-gmail-de-mobile': "Klar, mache ich.",
  '07-gmail-fr-wrapped': "D'accord, je l'envoie jeudi.",
  '08-gmail-es': "Perfecto, te lo mando el jueves.",
  '09-gmail-it-wrapped': "Va bene, lo mando giovedì.",
  '10-gmail-pt-wrapped': "Claro, envio na quinta.",
  '11-gmail-nl': "Prima, ik stuur het donderdag.",
  '12-gmail-pl': "Jasne, wyślę w czwartek.",
  // Gmail in Russian names no verb: "пн, 23 нояб. 2026 г. в 10:00, Name <address>:".
  '13-gmail-ru': "Хорошо, отправлю в четверг.",
  '14-gmail-zh': "好的，周四发给你。",
  '15-gmail-ja': "承知しました。木曜日に送ります。",
  '16-gmail-ko': "네, 목요일에 보내드릴게요.",
  // Apple Mail puts its attribution inside the quote.
  '17-apple-mail-macos-en': "Yes, that's fine.\n\nAda",
  // Mobile signatures in languages email-reply-parser does not know are removed too.
  '18-apple-mail-ios-ru-sent-from-iphone': "Да, конечно.",
  '19-apple-mail-ios-ja': "了解です。",
  '20-apple-mail-ios-fr-envoye-de-mon-iphone': "Oui, parfait.",
  '21-apple-mail-ios-de-von-meinem-iphone': "Passt.",
  '22-thunderbird-en-top-post': "Thanks, received.",
  '23-thunderbird-de-flowed': "Danke, ist angekommen.",
  '24-thunderbird-pl-w-dniu': "Dziękuję, dotarło.",
  // Yahoo quotes the history without "> " marks, under an indented attribution.
  '25-yahoo-en': "Sounds good to me.",
  // A sign-off ("Regards,") is not a signature delimiter: it stays, as the brief says a person would
  // read it.
  '26-outlook-desktop-original-message': "Attached is the signed copy.\n\nRegards,\nAda",
  '27-outlook-desktop-mailto': "Attached.",
  '28-outlook-bold-labels-from-html': "See my notes below.",
  '29-outlook-fr': "Bien reçu, merci.",
  // Outlook in Spanish: "Enviado el:"; with a Cc line "Asunto:" is out of reach of "De:".
  '30-outlook-es-with-cc': "Recibido, gracias.",
  // Outlook in Portuguese: "Enviada em:", "Assunto:".
  '31-outlook-pt-with-cc': "Recebido, obrigado.",
  '32-outlook-it': "Ricevuto, grazie.",
  '33-outlook-nl-pl-ru-mixed-de': "Erhalten, danke.",
  '34-outlook-web-html-only': "Thanks, that works for me.",
  '35-outlook-get-outlook-for-android': "On my way.",
  '36-outlook-ja': "確認しました。",
  '37-signature-delimiter': "Sure, Thursday at ten.",
  '38-no-quote-at-all': "Hello,\n\nI would like to cancel my subscription, effective immediately.\nMy account number is 4471.\n\nThank you,\nAda",
  // Above the history, a "> " line is an excerpt the writer quotes in the new text, and a line ending
  // with a colon is theirs.
  '39-top-post-with-colon-and-quote-line': "Two things:\n1. The deploy is done.\n2. The log still says:\n> ERROR 42: disk quota exceeded\n\nCan you check the quota?",
  // Debatable: the answers are kept and the quoted questions dropped (as parse-flowed.test.ts expects);
  // the blank lines around the removed quotes are not kept, so the answers are one paragraph.
  '40-inline-replies': "Yes, Friday at noon.\nNo, Carol is away that week.",
  '41-gmail-forward': "FYI, see the thread below.",
  '42-html-only-gmail-quote': "Works for me.",
  '43-html-only-thunderbird-moz-cite-prefix': "Agreed.",
  '44-html-only-apple-mail': "Yes, please do.",
  '45-crlf-base64-body': "Confirmed.\nSee you there.",
  // "From:", "Sent:", "On Monday … wrote:" inside a sentence are not history.
  '46-from-and-on-monday-mid-sentence': "The bounce shows From: as our old domain. On Monday, Bob Smith <bob@example.com> wrote: to the vendor about it.\nI think the Sent: date is wrong too.",
  // Lines that start with "From:", "Date:", "Subject:" but carry no date are the writer's list, not a
  // header block.
  '47-new-text-lines-start-with-from-and-on-monday': "On Monday we changed the export. It now has:\nFrom: the sender address\nDate: when it was sent\nSubject: the subject line\n\nIs that enough for the audit?",
  // Thunderbird's forward: Subject and Date come before From, under "-------- Forwarded Message
  // --------". A forward's new text is the note above it.
  '48-thunderbird-forward': "Please have a look.",
  // Apple Mail's forward: "Begin forwarded message:" over From, Subject, Date.
  '49-apple-mail-forward': "For your records.",
  '50-mobile-signatures-other-languages': "Va bene.",
  // Debatable: email-reply-parser would drop "Best regards,\nAda" as a signature; without a delimiter
  // it is part of the text (as GitHub's and talon's parsers keep it).
  '51-sign-off-kept': "Sounds good.\n\nBest regards,\nAda",
  '52-gmail-zh-mobile-sig': "收到。",
  // Thunderbird's short attribution: a name and "wrote:", no date or address.
  '53-thunderbird-name-wrote-no-date': "Fixed in the next build.",
  // Gmail wraps before the address: the date stays on the first line.
  '54-gmail-wrapped-address-on-second-line': "Approved.",
  '55-evolution': "Merged, thanks.",
  '56-outlook-desktop-html-only': "Please find the signed copy attached.",
  // Yahoo's HTML quotes the history in a div, not a blockquote: after the attribution, unquoted text.
  '57-yahoo-html-only': "Sounds good to me.",
  // A sign-off word on a line of its own is not a signature: the text after it stays.
  '58-sign-off-cheers-mid-text': "Great news.\nCheers!\nThe deploy went fine, and the dashboards are green.",
  '59-korean-iphone-signature': "네, 알겠습니다.",
  '60-outlook-express-original-message-no-address': "OK.",
};

describe('the new text of replies as clients write them', () => {
  const messages = corpusMessages(CORPUS);

  test('every corpus message has an expectation', () => {
    expect(messages.map(([name]) => name).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  test.each(messages)('when %s is received, then textReply is its new text', async (name, raw) => {
    const parsed = await parseMessage(raw);
    expect(parsed.parseError).toBeNull();
    expect(parsed.textReply).toBe(EXPECTED[name]);
  });
});
