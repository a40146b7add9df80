import { join } from 'node:path';
import { corpusSuite, type ExpectedReceived, readReceived } from './processing-support';

const CORPUS = join(__dirname, 'parse-corpus-wild');
const ada = { address: 'ada@sender.test', name: 'Ada Lovelace' };
const inbox = [{ address: 'inbox@acme.test', name: null }];
/** What the messages built on the common header block share (Message-ID `<NN@sender.test>`). */
const common = (name: string) => ({ from: ada, to: inbox, cc: [], replyTo: [], date: '2026-11-23T10:00:00.000Z', messageId: `<${name.slice(0, 2)}@sender.test>` });

const hex = (text: string) => Buffer.from(text, 'latin1').toString('hex');
const pdf = { contentType: 'application/pdf', contentId: null, disposition: 'attachment' };

/**
 * Mail as it arrives from the wild (Outlook, S/MIME and PGP clients, calendar servers, old
 * mailers, broken generators) and what must be stored for it, field by field. Each value is what
 * RFCs 2045–2049, 2047, 2183, 2231, 5322 and 6532 make of the message, and what Postmark's,
 * Mailgun's or SendGrid's inbound parsing gives for it.
 */
const EXPECTED: Record<string, ExpectedReceived> = {
  // Outlook's TNEF (winmail.dat) is one opaque attachment, exact bytes, never opened.
  '01-outlook-tnef': {
    ...common('01'),
    subject: 'Quarterly numbers',
    text: 'Numbers attached.\n',
    html: null,
    textReply: 'Numbers attached.',
    attachments: [
      {
        filename: 'winmail.dat',
        contentType: 'application/ms-tnef',
        size: 39,
        contentId: null,
        disposition: 'attachment',
        hex: `789f3e220100010690080004${hex('TNEF body with \x00 bytes\r\n.\r\n')}`,
      },
    ],
  },
  // S/MIME multipart/signed (RFC 8551 §3.5.3): the text and html come from the signed part; the signature is an attachment.
  '02-smime-signed': {
    ...common('02'),
    text: 'Signed text ✓',
    html: '<p>Signed html</p>',
    attachments: [{ filename: 'smime.p7s', contentType: 'application/pkcs7-signature', size: 16, contentId: null, disposition: 'attachment' }],
  },
  // Opaque S/MIME (application/pkcs7-mime at the top): no text, the envelope is the one attachment.
  '03-smime-opaque': {
    ...common('03'),
    text: null,
    html: null,
    textReply: null,
    attachments: [{ filename: 'smime.p7m', contentType: 'application/pkcs7-mime', size: 16, contentId: null, disposition: 'attachment' }],
  },
  // PGP/MIME encrypted (RFC 3156 §4): both control and data parts are kept, nothing is text.
  '04-pgp-encrypted': {
    ...common('04'),
    subject: '...',
    text: null,
    html: null,
    attachments: [
      { filename: null, contentType: 'application/pgp-encrypted', size: 12, contentId: null, disposition: null, utf8: 'Version: 1\r\n' },
      { filename: 'encrypted.asc', contentType: 'application/octet-stream', size: 131, contentId: null, disposition: 'inline' },
    ],
  },
  // PGP/MIME signed (RFC 3156 §5): the signed text/plain (flowed, quoted-printable) is the text.
  '05-pgp-signed': {
    ...common('05'),
    text: 'Meet at noon, café on the corner.',
    attachments: [{ filename: 'OpenPGP_signature.asc', contentType: 'application/pgp-signature', size: 135, contentId: null, disposition: 'attachment' }],
  },
  // Gmail's invitation: text and html from the alternative; the text/calendar alternative and the .ics are attachments, not lost.
  '06-gmail-calendar-request': {
    ...common('06'),
    text: 'You have been invited to Design review.',
    html: '<p>You have been invited to <b>Design review</b>.</p>',
    attachments: [
      { filename: null, contentType: 'text/calendar', size: 255, contentId: null, disposition: null },
      { filename: 'invite.ics', contentType: 'application/ics', size: 257, contentId: null, disposition: 'attachment' },
    ],
  },
  // uuencoded lines inside a text/plain body are text as sent (no platform carves them out); nothing breaks.
  '07-uuencode-in-text': {
    ...common('07'),
    text: "Here is the file.\n\nbegin 644 hello.txt\n.:&5L;&\\L('=O<FQD(0H`\n`\nend\n\nBye.\n",
    attachments: [],
  },
  // Encoded words in quoted name/filename parameters (RFC 2047 §5 forbids them, every client writes them), one
  // character split between two words; a name= without any Content-Disposition; an 8bit part.
  '08-encoded-word-quoted-filenames': {
    ...common('08'),
    text: 'see attached',
    attachments: [
      { filename: 'Протокол совещания 2026.pdf', ...pdf, size: 9 },
      { filename: 'förslag bild.jpg', contentType: 'image/jpeg', size: 6, contentId: null, disposition: null },
      { filename: 'Notiz über Preise.txt', contentType: 'text/plain', size: 4, contentId: null, disposition: 'attachment', utf8: 'note' },
    ],
  },
  // RFC 2231: filename* wins over filename; percent-encoded bytes of one character split across continuations;
  // a language tag; an encoded %. A declared octet-stream stays one, whatever the name's extension.
  '09-rfc2231-split-percent': {
    ...common('09'),
    attachments: [
      { filename: '日本語.txt', contentType: 'application/octet-stream', size: 3, contentId: null, disposition: 'attachment' },
      { filename: 'Grüße %.txt', contentType: 'application/octet-stream', size: 3, contentId: null, disposition: null },
    ],
  },
  // RFC 2183 §2.3: a filename is a terminal component only; NUL (PostgreSQL refuses it) is dropped. An unescaped
  // backslash in a quoted string is a quoted-pair (RFC 5322 §3.2.4): "C:\report.pdf" says C:report.pdf. A declared
  // octet-stream stays one.
  '10-filename-paths': {
    ...common('10'),
    attachments: [
      { filename: 'report.pdf', ...pdf, size: 1, utf8: 'a' },
      { filename: 'passwd', ...pdf, size: 1, utf8: 'b' },
      { filename: 'safe.txt', contentType: 'application/octet-stream', size: 1, contentId: null, disposition: 'attachment', utf8: 'c' },
      { filename: 'C:report.pdf', ...pdf, contentType: 'application/octet-stream', size: 1, utf8: 'd' },
    ],
  },
  // RFC 2046 §5.1.1: a quoted boundary with spaces, and delimiter lines with transport padding (spaces, tabs) after
  // the boundary and after the close delimiter, which receivers MUST take; preamble and epilogue are not text.
  '11-boundary-quoted-whitespace': {
    ...common('11'),
    text: 'body text',
    textReply: 'body text',
    attachments: [{ filename: 'z.bin', contentType: 'application/octet-stream', size: 3, contentId: null, disposition: null, hex: '000102' }],
  },
  '12-preamble-epilogue': { ...common('12'), text: 'plain part', html: '<p>html part</p>', attachments: [] },
  // LF-only mail (Unix tools) and mixed line endings: the same parts, attachment bytes exact.
  '13-lf-only-multipart': {
    ...common('13'),
    text: 'line one joined\nline two',
    attachments: [{ filename: 'lf.bin', contentType: 'application/octet-stream', size: 10, contentId: null, disposition: null, hex: '00010203040506070809' }],
  },
  '14-mixed-line-endings': {
    ...common('14'),
    text: 'first\nsecond\nthird',
    attachments: [{ filename: 'm.bin', contentType: 'application/octet-stream', size: 4, contentId: null, disposition: null, hex: '00010203' }],
  },
  // Encoded words folded with tabs and split in the middle of a multi-byte character (B and Q); a language suffix (RFC 2231 §5).
  '15-split-encoded-words': {
    from: { address: 'zoe@sender.test', name: 'Zoë Çelik' },
    subject: 'Résumé für Zoë — 日本語',
    headers: expect.arrayContaining([
      { name: 'Subject', value: 'Résumé für Zoë — 日本語' },
      { name: 'Thread-Topic', value: 'Café' },
      { name: 'X-Lang', value: 'hello world' },
    ]),
  },
  // RFC 6532: raw UTF-8 in a filename parameter.
  '16-raw-utf8-filename': { ...common('16'), attachments: [{ filename: 'Größe Übersicht.pdf', ...pdf, size: 1 }] },
  // Base64 in odd case, padding in the middle (chunks encoded apart), short lines, no final padding, spaces around the label.
  '17-base64-odd': {
    ...common('17'),
    text: 'Hello world!',
    attachments: [
      { filename: 'short-lines.bin', contentType: 'application/octet-stream', size: 10, contentId: null, disposition: null, hex: '00010203040506070809' },
      { filename: 'no-padding.bin', contentType: 'application/octet-stream', size: 5, contentId: null, disposition: null, hex: '0001020304' },
    ],
  },
  // Quoted-printable: lower-case hex, =20, a soft break with padding after the = (RFC 2045 §6.7 (3)), an invalid
  // escape left as written (§6.7 note 1), a lone = at the very end dropped.
  '18-quoted-printable-odd': {
    ...common('18'),
    text: 'café lower-case hex \nsoft break with padding continues\nan invalid =ZZ escape and a lone = sign\nends with a broken ',
  },
  // Content-Transfer-Encoding: x-uuencode (Outlook Express, Pegasus): the attachment is the file, not its encoding.
  '19-x-uuencode-attachment': {
    ...common('19'),
    text: 'see file',
    attachments: [{ filename: 'hello.txt', contentType: 'application/octet-stream', size: 14, contentId: null, disposition: 'attachment', utf8: 'hello, world!\n' }],
  },
  // The label is what counts: base64-looking text labelled 8bit is text.
  '20-8bit-label-on-base64': { ...common('20'), text: 'SGVsbG8=\n' },
  // Apple Watch and AMP alternatives are neither `html` nor text: html is the text/html part; they are kept as parts.
  '21-alternative-watch-amp': {
    ...common('21'),
    text: 'plain',
    html: '<p>html</p>',
    attachments: [
      { filename: null, contentType: 'text/watch-html', size: 12, contentId: null, disposition: null },
      { filename: null, contentType: 'text/x-amp-html', size: 39, contentId: null, disposition: null },
    ],
  },
  // A message that is only an attachment (a scanner's): no text, no html, the one attachment.
  '22-top-level-pdf': { ...common('22'), text: null, html: null, textReply: null, attachments: [{ filename: 'scan.pdf', ...pdf, size: 9, utf8: '%PDF-1.4\n' }] },
  // A read receipt (RFC 8098) in ordinary mail: the human-readable part is the text; the report and headers are parts.
  '23-disposition-notification': {
    ...common('23'),
    text: 'Your message was displayed.',
    attachments: [
      { filename: null, contentType: 'message/disposition-notification', size: 175, contentId: null, disposition: null },
      { filename: null, contentType: 'text/rfc822-headers', size: 43, contentId: null, disposition: null },
    ],
  },
  // Content-ID without angle brackets, and with them padded by spaces: the same id.
  '24-content-id-forms': {
    ...common('24'),
    text: null,
    html: '<img src="cid:a@x"><img src="cid:b@x">',
    attachments: [
      { filename: null, contentType: 'image/gif', size: 6, contentId: 'a@x', disposition: null },
      { filename: null, contentType: 'image/gif', size: 6, contentId: 'b@x', disposition: null },
    ],
  },
  // Groups (empty and named), an encoded word inside a quoted name, and an obsolete source route (RFC 5322 §4.4:
  // ignored, the mailbox is route@acme.test). Domains as written: a U-label one stays Unicode, an A-label one
  // (which mailparser showed in Unicode) stays ASCII.
  '25-address-forms': {
    from: { address: 'zoe@sender.test', name: 'Zoë Çelik' },
    to: [],
    cc: [
      { address: 'a@x.test', name: null },
      { address: 'b@y.test', name: 'Jörg' },
      { address: 'route@acme.test', name: null },
    ],
    replyTo: [
      { address: 'info@bücher.example', name: 'Müller' },
      { address: 'xn--bcher-kva@xn--bcher-kva.example', name: null },
    ],
  },
  // A wrong day name, no seconds and Windows' GMT+0200: 10:00 at +02:00.
  '26-odd-dates': { date: '2026-11-23T08:00:00.000Z' },
  // Apple Mail's text, inline image, text: both texts, joined; the image is an inline attachment.
  '27-text-then-inline-image-then-text': {
    ...common('27'),
    text: 'before image\nafter image',
    attachments: [{ filename: 'pic.png', contentType: 'image/png', size: 8, contentId: null, disposition: 'inline' }],
  },
  // Undeclared 8-bit Latin-1 / Windows-1252 in From, To and Subject (not UTF-8): read as Windows-1252, not as U+FFFD.
  '28-latin1-undeclared-headers': {
    from: { address: 'jose@sender.test', name: 'José Martínez' },
    to: [
      { address: 'francoise@acme.test', name: 'Françoise' },
      { address: 'mueller@acme.test', name: 'Müller (Büro)' },
    ],
    subject: 'Café crème € 5 “special”',
    text: 'Café.\n',
    date: '2026-11-23T09:00:00.000Z',
    headers: expect.arrayContaining([
      { name: 'From', value: '"José Martínez" <jose@sender.test>' },
      { name: 'Subject', value: 'Café crème € 5 “special”' },
    ]),
  },
  // Parts whose body starts right after their fields, with no empty line (a text part, a base64 attachment): read as Python reads them.
  '29-part-fields-without-empty-line': {
    ...common('29'),
    subject: 'parts without the empty line',
    text: 'The report is attached.\nThanks, Ada\n',
    attachments: [
      { filename: 'data.bin', contentType: 'application/octet-stream', size: 10, contentId: null, disposition: 'attachment', hex: '00010203040506070809' },
    ],
  },
  // `Content-Type: text`, with no subtype, is no media type: text/plain, RFC 2045 §5.2's default; not a nameless attachment.
  '30-content-type-without-subtype': {
    ...common('30'),
    subject: 'typed only as text',
    text: 'A message typed only as text.\n',
    attachments: [],
  },
};

describe('parsing mail from the wild', () => {
  const suite = corpusSuite('parsewild', CORPUS, EXPECTED);

  test('when a calendar invitation arrives, then the calendar part holds the VCALENDAR with METHOD:REQUEST exactly', async () => {
    const stored = await readReceived(suite.rig().pool, suite.id('06-gmail-calendar-request'));
    const [alternative, file] = stored.attachments.map((a) => a.content.toString('utf8'));
    expect(alternative).toMatch(/^BEGIN:VCALENDAR\r\n[\s\S]*METHOD:REQUEST\r\n[\s\S]*END:VCALENDAR$/);
    expect(file).toBe(`${alternative}\r\n`);
  });

  test('when a padded close delimiter ends the multipart, then neither it nor the epilogue is in the text', async () => {
    const stored = await readReceived(suite.rig().pool, suite.id('11-boundary-quoted-whitespace'));
    expect(stored.text).not.toContain('--=_a b c');
    expect(stored.text).not.toContain('epilogue');
    expect(stored.text).not.toContain('preamble');
  });

  test('when a subject is undeclared Latin-1, then email.received carries it as stored', async () => {
    const { rows } = await suite.rig().pool.query<{ data: { subject: unknown } }>({
      text: `SELECT data FROM email_events WHERE received_email_id = $1 AND type = 'email.received'`,
      values: [suite.id('28-latin1-undeclared-headers')],
    });
    expect(rows.map((r) => r.data.subject)).toEqual(['Café crème € 5 “special”']);
  });
});
