import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { corpusMessages, type ExpectedReceived, expectStoredAs, type ProcessingRig, readReceived, startProcessingRig } from './processing-support';

const CORPUS = join(__dirname, 'corpus');
const ada = { address: 'ada@sender.test', name: 'Ada Lovelace' };
const adaBare = { address: 'ada@sender.test', name: null };
const inbox = [{ address: 'inbox@acme.test', name: null }];
const date = '2026-11-23T10:00:00.000Z';
/** What the corpus messages built on the common header block share. */
const common = (name: string) => ({ from: ada, to: inbox, cc: [], replyTo: [], date, messageId: `<${name}@sender.test>`, inReplyTo: null, references: [] });
/** What the hand-written bare messages share. */
const bare = { from: adaBare, to: inbox, cc: [], replyTo: [], date: null, messageId: null, inReplyTo: null, references: [], html: null };

const png = { contentType: 'image/png', size: 70 };
const pdfHex = Buffer.from('%PDF-1.4\n%fake pdf for tests\n').toString('hex');

/** Every corpus file and what must be stored for it, field by field. */
const EXPECTED: Record<string, ExpectedReceived> = {
  '01-subject-utf8-base64': { ...common('01-subject-utf8-base64'), subject: 'Grüße aus Köln 👋', text: 'Hallo.\n', html: null, textReply: 'Hallo.', attachments: [] },
  '02-subject-utf8-q': { ...common('02-subject-utf8-q'), subject: 'Prix : 5 € (réduit)', text: 'Body.\n' },
  '03-subject-iso-8859-1': { ...common('03-subject-iso-8859-1'), subject: 'Café crème à emporter', text: 'Café crème.\n' },
  '04-subject-iso-2022-jp': { ...common('04-subject-iso-2022-jp'), subject: '会議の議事録', text: 'こんにちは、世界。\n' },
  '05-subject-windows-1252': { ...common('05-subject-windows-1252'), subject: '“Quoted” – costs 20€', text: '“Smart” quotes and €.\n' },
  '06-subject-koi8-r': { ...common('06-subject-koi8-r'), subject: 'Отчёт за ноябрь', text: 'Привет, мир!\n' },
  // Adjacent encoded words join without the space between them (RFC 2047 §6.2).
  '07-subject-adjacent-words': { ...common('07-subject-adjacent-words'), subject: 'Hello wörld plain tail' },
  '08-nested-mixed-alternative-related': {
    ...common('08-nested-mixed-alternative-related'),
    subject: 'Nested',
    text: 'Plain version.',
    html: '<p>HTML version <img src="cid:logo@acme"></p>',
    textReply: 'Plain version.',
    attachments: [
      { filename: 'logo.png', ...png, contentId: 'logo@acme', disposition: 'inline' },
      { filename: 'report.pdf', contentType: 'application/pdf', size: 29, contentId: null, disposition: 'attachment', hex: pdfHex },
    ],
  },
  '09-inline-image-content-id': {
    ...common('09-inline-image-content-id'),
    text: null,
    html: '<img src="cid:part1.abc@mail">',
    textReply: '',
    attachments: [{ filename: null, ...png, contentId: 'part1.abc@mail', disposition: null }],
  },
  '10-rfc2231-continuations': {
    text: 'see attached',
    attachments: [
      {
        filename: '€ quarterly report über all.xlsx',
        // As declared: application/octet-stream, not a type guessed from the name.
        contentType: 'application/octet-stream',
        size: 4,
        contentId: null,
        disposition: 'attachment',
        hex: '00010203',
      },
    ],
  },
  '11-rfc2231-latin1-filename': {
    attachments: [{ filename: 'résumé.txt', contentType: 'text/plain', size: 6, contentId: null, disposition: 'attachment', hex: '52e973756de9' }],
  },
  '12-encoded-word-filename': {
    attachments: [{ filename: 'Überweisung März.pdf', contentType: 'application/pdf', size: 29, contentId: null, disposition: 'attachment', hex: pdfHex }],
  },
  '13-no-body': { ...common('13-no-body'), subject: 'Nothing inside', text: null, html: null, textReply: null, attachments: [] },
  '14-headers-only': {
    ...bare,
    subject: 'Headers only, no blank line',
    messageId: '<14@sender.test>',
    text: null,
    textReply: null,
    headers: [
      { name: 'From', value: 'ada@sender.test' },
      { name: 'To', value: 'inbox@acme.test' },
      { name: 'Subject', value: 'Headers only, no blank line' },
      { name: 'Message-ID', value: '<14@sender.test>' },
    ],
  },
  '15-malformed-headers': {
    ...bare,
    subject: 'Survives',
    text: 'body\n',
    headers: [
      { name: 'From', value: 'ada@sender.test' },
      { name: 'To', value: 'inbox@acme.test' },
      { name: 'This line has no colon', value: '' },
      { name: 'X-Empty', value: '' },
      { name: 'X-Folded', value: 'first part second part third part' },
      { name: 'Subject', value: 'Survives' },
    ],
  },
  // The first of a duplicated single header wins; `headers` keeps every one, in order; To headers add up.
  '16-duplicated-headers': {
    ...bare,
    to: [
      { address: 'first@acme.test', name: null },
      { address: 'second@acme.test', name: null },
    ],
    subject: 'First subject',
    messageId: '<one@x>',
    headers: [
      { name: 'From', value: 'ada@sender.test' },
      { name: 'To', value: 'first@acme.test' },
      { name: 'To', value: 'second@acme.test' },
      { name: 'Subject', value: 'First subject' },
      { name: 'Subject', value: 'Second subject' },
      { name: 'Received', value: 'from a by b; Mon, 23 Nov 2026 10:00:00 +0000' },
      { name: 'Received', value: 'from c by d; Mon, 23 Nov 2026 09:59:00 +0000' },
      { name: 'Message-ID', value: '<one@x>' },
      { name: 'Message-ID', value: '<two@x>' },
    ],
  },
  '17-8bit-utf8-undeclared': { ...bare, subject: 'eight bit', text: 'Naïve café — “quotes” 日本\n', textReply: 'Naïve café — “quotes” 日本' },
  '18-8bit-latin1-no-transfer-encoding': { ...bare, text: 'Café crème\n' },
  '19-missing-date': { ...bare, date: null, subject: 'no date' },
  '20-bad-date': { ...bare, date: null, headers: expect.arrayContaining([{ name: 'Date', value: 'Blursday, 45 Smarch 20x6 99:99:99 +9999' }]) },
  '21-group-addresses': {
    ...bare,
    to: [
      { address: 'alice@acme.test', name: null },
      { address: 'bob@acme.test', name: 'Bob B' },
      { address: 'carol@acme.test', name: null },
    ],
    cc: [],
  },
  '22-display-names-commas-quotes': {
    ...bare,
    from: { address: 'john@sender.test', name: 'Smith, John "JJ"' },
    to: [
      { address: 'pat@acme.test', name: "O'Brien, Pat" },
      { address: 'hans@acme.test', name: 'Müller, Hans' },
    ],
    replyTo: [{ address: 'support@sender.test', name: 'Support, Team' }],
  },
  '23-reply-quoted-signature': {
    ...common('23-reply-quoted-signature'),
    subject: 'Re: Your order',
    inReplyTo: '<order-1@acme.test>',
    references: ['<start@acme.test>', '<order-1@acme.test>'],
    textReply: 'Thanks, the parcel arrived today.\nI will confirm by Friday.',
  },
  '24-reply-sent-from-phone': { textReply: 'Yes, 12:30 works.', text: 'Yes, 12:30 works.\n\nSent from my iPhone\n\n> On 22 Nov 2026, at 18:02, Bob <bob@acme.test> wrote:\n>\n> Lunch tomorrow?\n' },
  '25-html-only': {
    ...common('25-html-only'),
    text: null,
    html: '<html><body><h1>Welcome</h1><p>Hello <b>Ada</b>, thanks for joining.</p></body></html>\n',
    textReply: 'Welcome\n\nHello Ada, thanks for joining.',
  },
  '26-calendar-invite': {
    text: 'You are invited to Review.',
    attachments: [{ filename: null, contentType: 'text/calendar', size: 140, contentId: null, disposition: null }],
  },
  '27-message-rfc822-attachment': {
    text: 'Forwarding the original.',
    attachments: [{ filename: 'original.eml', contentType: 'message/rfc822', size: 86, contentId: null, disposition: 'attachment' }],
  },
  // Characters outside the base64 alphabet are skipped; the rest decodes.
  '28-base64-garbage': {
    attachments: [{ filename: 'blob.bin', contentType: 'application/octet-stream', size: 13, contentId: null, disposition: 'attachment', hex: '000102030405060708090a0b0c' }],
  },
  '29-quoted-printable': { text: 'A long line that is soft-broken, an equals sign = and café.\n' },
  '30-format-flowed': { text: 'This paragraph is flowed across two lines.' },
  '31-smtputf8-raw-headers': { ...bare, from: { address: 'zoe@sender.test', name: 'Zoë Çelik' }, subject: 'Ünïcödé without encoding' },
  '32-message-ids': {
    ...bare,
    messageId: '<abc.123@sender.test>',
    inReplyTo: '<parent@acme.test>',
    references: ['<root@acme.test>', '<mid@acme.test>', '<parent@acme.test>'],
  },
  '33-no-from': { ...bare, from: null, subject: 'nobody sent this' },
  '34-bare-lf': { ...bare, subject: 'bare LF', text: 'line one\nline two\n' },
  '35-long-line': { ...bare, text: `${'x'.repeat(70_000)}\n` },
  // PostgreSQL refuses NUL in text: it is dropped, the rest kept.
  '36-nul-bytes': { ...bare, subject: 'nulhere', text: 'beforeafter\n' },
  '37-unknown-charset': { ...bare, text: 'plain ascii survives\n' },
  // A broken encoded word stays as written; one in an unknown charset is read as ASCII.
  '38-invalid-encoded-words': { ...bare, subject: '=?UTF-8?X?abc?= and hello end' },
  '39-empty-subject': { ...bare, subject: '' },
  '40-no-subject': { ...bare, subject: null },
  '41-delivery-status-report': {
    text: 'Your message could not be delivered.',
    attachments: [{ filename: null, contentType: 'message/delivery-status', size: 108, contentId: null, disposition: null }],
  },
  '42-attachment-without-name': {
    attachments: [{ filename: null, contentType: 'application/octet-stream', size: 4, contentId: null, disposition: null, hex: 'deadbeef' }],
  },
  '43-unclosed-multipart': {
    text: 'the text part',
    attachments: [{ filename: 'cut.bin', contentType: 'application/octet-stream', size: 3, contentId: null, disposition: null, hex: '000102' }],
  },
  '44-html-reply-blockquote': { text: null, textReply: 'Sounds good to me.' },
  // A multipart without a boundary cannot be split: its body is text/plain (RFC 2045 §5.2, as mail clients show it), no error.
  '45-boundary-missing': {
    ...common('45-boundary-missing'),
    subject: 'multipart without boundary',
    text: 'just some text\n',
    html: null,
    textReply: 'just some text',
    attachments: [],
  },
};

const BIG_ATTACHMENT_BYTES = 20 * 1024 * 1024;

describe('parsing the corpus', () => {
  let rig: ProcessingRig;
  let ids: Map<string, string>;
  let big: { id: string; content: Buffer };

  beforeAll(async () => {
    rig = await startProcessingRig('corpus');
    const content = randomBytes(BIG_ATTACHMENT_BYTES);
    const raw = Buffer.concat([
      Buffer.from(
        'From: ada@sender.test\r\nTo: inbox@acme.test\r\nSubject: big\r\nContent-Type: multipart/mixed; boundary="big"\r\n\r\n' +
          '--big\r\nContent-Type: text/plain\r\n\r\nsee the archive\r\n--big\r\nContent-Type: application/zip\r\n' +
          'Content-Disposition: attachment; filename="big.zip"\r\nContent-Transfer-Encoding: base64\r\n\r\n',
      ),
      Buffer.from(content.toString('base64').replace(/.{76}/g, '$&\r\n')),
      Buffer.from('\r\n--big--\r\n'),
    ]);
    const stored = await rig.process([...corpusMessages(CORPUS), ['big', raw]]);
    big = { id: stored.get('big') as string, content };
    stored.delete('big');
    ids = stored;
  }, 120_000);
  afterAll(() => rig.close());

  test('the corpus holds at least 40 messages, each with expectations', () => {
    expect(ids.size).toBeGreaterThanOrEqual(40);
    expect([...ids.keys()].sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  test.each(Object.entries(EXPECTED))('when %s is received, then it is stored parsed field by field', async (name, expected) => {
    const stored = await readReceived(rig.pool, ids.get(name) as string);
    expectStoredAs(stored, expected);
    // Every message keeps its headers in order, with names as written.
    expect(stored.headers.length).toBeGreaterThan(0);
  });

  test('when a message carries a 20 MB attachment, then its exact bytes are stored', async () => {
    const stored = await readReceived(rig.pool, big.id);
    expect(stored.text).toBe('see the archive');
    expect(stored.attachments).toHaveLength(1);
    const [attachment] = stored.attachments;
    expect(attachment).toMatchObject({ filename: 'big.zip', contentType: 'application/zip', size: BIG_ATTACHMENT_BYTES, disposition: 'attachment' });
    const digest = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    expect(digest(attachment?.content as Buffer)).toBe(digest(big.content));
  });
});
