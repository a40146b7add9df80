import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpusSuite, type ExpectedReceived, readReceived } from './processing-support';

/**
 * Internationalized mail (RFC 6532 raw UTF-8 headers, RFC 6531 addresses, message/global) as
 * stored, field by field: what parse-differential.test.ts compares with Python's email package,
 * pinned here to exact values, and the choices Python cannot judge (addresses kept as sent, not
 * NFC; a message/global kept whole like a message/rfc822).
 */
const FOLDER = join(__dirname, 'parse-corpus-eai');
const raw = (name: string) => readFileSync(join(FOLDER, `${name}.eml`));

const PDF = { contentType: 'application/pdf', size: 14, contentId: null, disposition: 'attachment', utf8: '%PDF-1.4\n%eai\n' };
const ADA = { from: { address: 'ada@sender.test', name: 'Ada Lovelace' }, to: [{ address: 'inbox@acme.test', name: null }] };
const ZOE = { address: 'zoe@sender.test', name: 'Zoë Çelik' };

/** The bytes between a part's header section and the delimiter that ends it (RFC 2046 §5.1.1: the CRLF before it is the delimiter's). */
function partBody(name: string, after: string, boundary: string): Buffer {
  const message = raw(name);
  const start = message.indexOf(after) + Buffer.byteLength(after);
  return message.subarray(start, message.indexOf(`\r\n--${boundary}`, start));
}

const EXPECTED: Record<string, ExpectedReceived> = {
  '01-subject-raw-scripts': { ...ADA, subject: 'Grüße — Ελληνικά, 中文, עברית, العربية, हिन्दी 👩‍👩‍👧‍👦 🇩🇪', text: 'Grüße aus Zürich 👋\n' },
  '02-display-names-quoted': {
    from: { address: 'zoe@sender.test', name: 'Zoë Çelik, Ph.D.' },
    to: [
      { address: 'taro@acme.test', name: '山田, 太郎' },
      { address: 'bea@acme.test', name: "O'Brien “Béa” Ní Dhónaill" },
    ],
    cc: [
      { address: 'jorg@acme.test', name: 'Jörg "der Große" Müller' },
      { address: 'party@acme.test', name: '🎉 Party; Team' },
    ],
    replyTo: [{ address: 'support@sender.test', name: 'Équipe: Support' }],
  },
  '03-display-names-unquoted': {
    from: ZOE,
    to: [
      { address: 'jose@acme.test', name: 'José Müller' },
      { address: 'tanaka@acme.test', name: '田中 太郎' },
      { address: 'oyvind@acme.test', name: 'Øyvind Åsmund' },
    ],
    cc: [
      { address: 'ioannis@acme.test', name: 'Ιωάννης Παπαδόπουλος' },
      { address: 'vlad@acme.test', name: 'Владимир Иванов' },
    ],
    replyTo: [{ address: 'jorg@acme.test', name: 'Müller, Jörg' }],
  },
  '04-rtl-display-names': {
    from: { address: 'mohammed@sender.test', name: 'محمد بن سلمان' },
    // The right-to-left marks the sender put inside the quotes stay.
    to: [
      { address: 'david@acme.test', name: 'דוד כהן' },
      { address: 'sara@acme.test', name: '\u200Fשרה לוי, מנהלת\u200F' },
    ],
    cc: [{ address: 'fatima@acme.test', name: 'فاطمة الزهراء' }],
    subject: 'שלום — مرحبا (RTL)',
  },
  // Addresses and names as sent, in NFD: only routing compares in NFC.
  '05-nfd-names-and-addresses': {
    from: { address: 'zoe\u0308@sender.test', name: 'Zoe\u0308 C\u0327elik' },
    to: [
      { address: 'jo\u0308rg@bu\u0308cher.example', name: 'Jo\u0308rg Mu\u0308ller' },
      { address: 'rene\u0301e@acme.test', name: 'Rene\u0301e' },
    ],
    cc: [{ address: 'jose\u0301@acme.test', name: 'Jose\u0301' }],
    subject: 'Cre\u0300me bru\u0302le\u0301e fu\u0308r Jo\u0308rg',
  },
  // U-label domains stay U-labels, and case stays as written.
  '06-utf8-local-parts-u-labels': {
    from: { address: '用户@例子.广告', name: '用户' },
    to: [
      { address: 'jürgen@bücher.example', name: null },
      { address: 'δοκιμή@παράδειγμα.δοκιμή', name: null },
      { address: 'заказ@пример.рф', name: 'Заказ' },
    ],
    cc: [
      { address: 'मेल@उदाहरण.भारत', name: null },
      { address: 'ÄRGER@BÜCHER.EXAMPLE', name: null },
    ],
    replyTo: [{ address: '返信@例え.テスト', name: '返信' }],
  },
  '07-mixed-encoded-words-and-raw': {
    from: ZOE,
    to: [
      { address: 'jorg@acme.test', name: 'Jörg Müller' },
      { address: 'taro@acme.test', name: '山田 太郎' },
    ],
    subject: 'Café und Grüße à bientôt — 終わり',
  },
  '08-group-and-comments-utf8': {
    from: ZOE,
    to: [
      { address: 'jose@acme.test', name: 'José' },
      { address: 'ijs@acme.test', name: 'Ĳsbrand' },
    ],
    cc: [],
  },
  '09-raw-utf8-filenames': {
    ...ADA,
    text: 'see attached',
    attachments: [
      { ...PDF, filename: 'Übersicht 2026 – Q1.pdf' },
      { ...PDF, filename: '报告.pdf' },
      { filename: '🙂 notes; “draft”.txt', contentType: 'text/plain', size: 5, contentId: null, disposition: 'attachment', utf8: 'notes' },
      { filename: 'Re\u0301sume\u0301.bin', contentType: 'application/octet-stream', size: 3, contentId: null, disposition: 'attachment', hex: '000102' },
    ],
  },
  '10-raw-utf8-names-and-content-ids': {
    ...ADA,
    html: '<p>Фото: <img src="cid:写真1@例子.test"></p>',
    attachments: [
      { filename: '写真 1.png', contentType: 'image/png', size: 16, contentId: '写真1@例子.test', disposition: 'inline' },
      { ...PDF, filename: 'Ελληνικά.pdf', disposition: null },
      { ...PDF, filename: 'Übersicht.pdf' },
    ],
  },
  // RFC 6532 §3.7: message/global is an encapsulated message, kept as message/rfc822 is: one
  // attachment of its exact bytes, its text and attachments never the forwarder's.
  '11-message-global-attachment': {
    text: 'ÄUSSERER TEXT',
    attachments: [
      {
        filename: null,
        contentType: 'message/global',
        size: partBody('11-message-global-attachment', 'Content-Disposition: attachment\r\n\r\n', 'g11').length,
        contentId: null,
        disposition: 'attachment',
        utf8: partBody('11-message-global-attachment', 'Content-Disposition: attachment\r\n\r\n', 'g11').toString('utf8'),
      },
    ],
  },
  '12-message-global-inline': {
    text: 'OUTER',
    html: null,
    attachments: [
      {
        filename: 'Weitergeleitet.eml',
        contentType: 'message/global',
        size: partBody('12-message-global-inline', 'Content-Disposition: inline\r\n\r\n', 'g12').length,
        contentId: null,
        disposition: 'inline',
      },
      { filename: null, contentType: 'message/rfc822', size: 69, contentId: null, disposition: 'inline' },
    ],
  },
  // Unlike message/rfc822, message/global may be base64 (RFC 6532 §3.7): stored decoded.
  '13-message-global-base64': {
    attachments: [
      {
        filename: 'original.u8msg',
        contentType: 'message/global',
        size: 152,
        contentId: null,
        disposition: 'attachment',
        utf8: 'From: Jörg <jörg@bücher.example>\r\nTo: zoe@sender.test\r\nSubject: Über base64\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nKörper\r\n',
      },
    ],
  },
  // UTF-8 with a stray byte or a character cut short: U+FFFD for those bytes, the rest as sent.
  '14-invalid-utf8-bytes': {
    from: { address: 'zoe@sender.test', name: 'Zoë\uFFFD Celik' },
    to: [
      { address: 'jorg@acme.test', name: 'Jörg\uFFFD' },
      { address: 'taro@acme.test', name: 'Taro' },
    ],
    cc: [{ address: 'unal@acme.test', name: 'Ünal' }],
    subject: 'Grüße \uFFFD(\uFFFD\uFFFD kaputt — 終わり',
    text: 'the rest is here',
    attachments: [{ ...PDF, filename: 'Übersicht\uFFFD.pdf' }],
  },
  // Folded inside a character: the fold and its space are taken out.
  '15-fold-inside-multibyte': {
    from: { address: 'zoe@sender.test', name: 'Zoë Çelik-Ünlü' },
    subject: 'Grüße aus Köln und 日本語のテキスト',
    attachments: [{ ...PDF, filename: 'Übersicht 2026 – Köln.pdf' }],
  },
  '16-long-folded-utf8': {
    to: [
      { address: 'inbox@acme.test', name: null },
      { address: 'jorg@acme.test', name: 'Jörg Müller' },
      { address: 'tanaka@acme.test', name: '田中 太郎' },
    ],
    subject:
      'Überweisung für die Rechnung Nr. 2026-11 über 1.234,56 € — bitte prüfen und bestätigen — 请 核对 并 确认 付款 — пожалуйста подтвердите оплату',
    text: null,
    html: '<p>Überweisung — 请核对</p>\n',
  },
  // RFC 6532 §3.2 allows UTF-8 in a msg-id and in a quoted local part; quotes that are only syntax go.
  '17-utf8-message-id-and-quoted-local': {
    from: { address: '"zoë çelik"@sender.test', name: 'Zoë' },
    to: [{ address: 'jörg+news@acme.test', name: null }],
    messageId: '<идентификатор.1@пример.рф>',
  },
  '18-global-headers-part': {
    text: 'the headers',
    attachments: [
      {
        filename: null,
        contentType: 'message/global-headers',
        size: 79,
        contentId: null,
        disposition: null,
        utf8: 'From: Jörg <jörg@bücher.example>\r\nTo: 用户@例子.广告\r\nSubject: Über\r\n',
      },
    ],
  },
  '19-8bit-utf8-body-parts-and-subject': { subject: 'Ünïcödé 😀 in a multipart/alternative', text: 'Ünïcödé 😀 — 中文', html: '<p>Ünïcödé 😀 — 中文</p>' },
};

describe('internationalized mail (RFC 6532, 6531) as stored', () => {
  const suite = corpusSuite('parseeai', FOLDER, EXPECTED);

  test('when a header has bytes that are not UTF-8 or is folded inside a character, then the headers list reads it as the parsed fields do', async () => {
    const subject = async (name: string) => (await readReceived(suite.rig().pool, suite.id(name))).headers.find((h) => h.name === 'Subject')?.value;
    expect(await subject('14-invalid-utf8-bytes')).toBe(EXPECTED['14-invalid-utf8-bytes']?.subject);
    expect(await subject('15-fold-inside-multibyte')).toBe(EXPECTED['15-fold-inside-multibyte']?.subject);
  });

  test('when a message/global is attached inline, then its text is not the message’s and its bytes are kept whole', async () => {
    const stored = await readReceived(suite.rig().pool, suite.id('12-message-global-inline'));
    expect(stored.text).not.toContain('内部');
    expect(stored.attachments[0]?.content.toString('utf8')).toMatch(/^From: 用户 <用户@例子\.广告>\r\n[\s\S]*内部テキスト[\s\S]*--inner12--$/);
  });
});
