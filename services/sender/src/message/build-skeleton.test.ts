import { createRequire } from 'node:module';
import { simpleParser } from 'mailparser';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { OutgoingAttachment, OutgoingEmail } from '../send-store';
import { listIdText, MessageSkeleton, type PersonalizeHtml, unstructuredHeaderText } from './build-skeleton';

// libmime (the decoder mailparser uses) comes with mailparser; no types of its own.
const libmime = createRequire(require.resolve('mailparser'))('libmime') as { decodeWords(value: string): string };

function email(overrides: Partial<OutgoingEmail> = {}): OutgoingEmail {
  return {
    id: 'em_1',
    projectId: 'proj_1',
    from: 'Sender <sender@mailroom.test>',
    fromAddress: 'sender@mailroom.test',
    to: ['one@example.test'],
    cc: [],
    replyTo: [],
    subject: 'Per recipient',
    html: '<p>Héllo, <a href="https://example.test/a">a link</a></p>',
    text: 'Hello',
    headers: { 'X-Entity-Ref-ID': 'ref-1' },
    tags: [],
    messageId: 'em_1@mailroom.test',
    trackOpens: false,
    trackClicks: false,
    hasAttachments: true,
    due: [],
    suppressed: [],
    ...overrides,
  };
}

const attachment = (content: Buffer): OutgoingAttachment => ({ filename: 'data.bin', contentType: 'application/octet-stream', contentId: null, content });
const recipients = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `rcpt_${i}`, address: `r${i}@example.test` }));

/** What tracking will do: a pixel and a rewritten link per recipient, with a line far longer than 998 characters. */
const tracked: PersonalizeHtml = (html, recipient) =>
  html.replace('https://example.test/a', `https://t.mailroom.test/c/${recipient.id}/${'x'.repeat(1500)}`) +
  `<img src="https://t.mailroom.test/o/${recipient.id}" alt="">`;

/**
 * The same email built the ordinary way by nodemailer, with the skeleton's date, boundaries
 * and HTML transfer encoding (decided once from the email's HTML, not from each recipient's).
 */
function buildNormally(
  source: OutgoingEmail,
  attachments: OutgoingAttachment[],
  html: { content: string; contentTransferEncoding: string },
  skeleton: MessageSkeleton,
): Promise<Buffer> {
  const head = skeleton.prefix.toString('latin1');
  const date = /\r\nDate: ([^\r\n]+)/.exec(head)?.[1];
  const baseBoundary = /boundary="--_NmP-([0-9a-f]+)-Part_1"/.exec(head)?.[1];
  if (!date || !baseBoundary) throw new Error('no Date or boundary in the skeleton');
  const composer = new MailComposer({
    from: source.from,
    to: source.to,
    subject: source.subject,
    html,
    ...(source.text !== null ? { text: source.text } : {}),
    headers: source.headers,
    messageId: `<${source.messageId}>`,
    date: new Date(date),
    baseBoundary,
    attachments: attachments.map((a) => ({ filename: a.filename, content: a.content, contentType: a.contentType ?? undefined })),
  } as ConstructorParameters<typeof MailComposer>[0]);
  return new Promise((resolve, reject) => composer.compile().build((err, message) => (err ? reject(err) : resolve(message))));
}

/** The lines of the part whose headers contain `contentType`, headers excluded. */
function partBody(message: string, contentType: string): string[] {
  const start = message.indexOf(`Content-Type: ${contentType}`);
  const body = message.slice(message.indexOf('\r\n\r\n', start) + 4);
  return body.slice(0, body.indexOf('\r\n--')).split('\r\n');
}

/** A recipient's message as its parts (a message compiled whole is one part). */
const partsOf = (message: Buffer | readonly Buffer[]): readonly Buffer[] => (Buffer.isBuffer(message) ? [message] : message);

describe('MessageSkeleton', () => {
  it('when a 20 MB message goes to 50 recipients with different HTML, then every message shares the one compiled prefix and suffix', async () => {
    const big = Buffer.alloc(20 * 1024 * 1024, 7);
    const skeleton = await MessageSkeleton.build(email(), [attachment(big)]);

    const messages = (await Promise.all(recipients(50).map((r) => skeleton.forRecipient(r, tracked)))).map(partsOf);

    for (const message of messages) {
      expect(message).toHaveLength(3);
      expect(message[0]).toBe(skeleton.prefix);
      expect(message[2]).toBe(skeleton.suffix);
    }
    // Every byte retained, counted once per distinct memory block: the compiled message (the
    // attachment, base64) once, plus 50 small HTML parts.
    const blocks = new Set(messages.flatMap((message) => message.map((part) => part.buffer)));
    const retained = [...blocks].reduce((sum, block) => sum + block.byteLength, 0);
    const oneMessage = skeleton.prefix.length + skeleton.suffix.length;
    expect(oneMessage).toBeGreaterThan(big.length);
    expect(retained).toBeLessThan(oneMessage + 50 * 64 * 1024);
  });

  it.each([
    ['quoted-printable', '<p>Héllo, <a href="https://example.test/a">a link</a></p>'],
    ['base64', '<p>Привет, мир! Это письмо на русском языке, довольно длинное.</p><a href="https://example.test/a">ссылка</a>'],
  ])(
    'when the HTML differs per recipient (%s), then each message is the one nodemailer builds for that HTML, byte for byte, and parses back to it',
    async (encoding, html) => {
      const source = email({ html });
      const attachments = [attachment(Buffer.from('attachment bytes'))];
      const skeleton = await MessageSkeleton.build(source, attachments);

      for (const recipient of recipients(2)) {
        const raw = Buffer.concat(partsOf(await skeleton.forRecipient(recipient, tracked)));
        const expectedHtml = tracked(html, recipient);

        const normal = await buildNormally(source, attachments, { content: expectedHtml, contentTransferEncoding: encoding }, skeleton);
        expect(raw.equals(normal)).toBe(true);
        const text = raw.toString('latin1');
        expect(text).toContain(`Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: ${encoding}\r\n`);
        for (const line of partBody(text, 'text/html')) expect(line.length).toBeLessThanOrEqual(76);
        for (const line of text.split('\r\n')) expect(line.length).toBeLessThanOrEqual(998);
        const parsed = await simpleParser(raw);
        expect(parsed.html).toBe(expectedHtml);
        expect(parsed.text).toBe('Hello');
        expect(parsed.attachments.map((a) => a.content.toString())).toEqual(['attachment bytes']);
      }
    },
  );

  it('when the email has only 7-bit HTML, then its part is still quoted-printable, so a recipient whose HTML has long lines is carried intact', async () => {
    const source = email({ html: '<p>Plain</p>', text: null, hasAttachments: false });
    const skeleton = await MessageSkeleton.build(source, []);
    const raw = Buffer.concat(partsOf(await skeleton.forRecipient({ id: 'rcpt_1', address: 'one@example.test' }, (html) => html + 'y'.repeat(2000))));

    expect(raw.toString('latin1')).toContain('Content-Transfer-Encoding: quoted-printable');
    for (const line of raw.toString('latin1').split('\r\n')) expect(line.length).toBeLessThanOrEqual(76);
    // mailparser ends the last part's text with the message's final line break.
    expect((await simpleParser(raw)).html).toBe(`<p>Plain</p>${'y'.repeat(2000)}\n`);
  });

  it('when every recipient gets the same HTML, then its encoded part is one shared Buffer too', async () => {
    const skeleton = await MessageSkeleton.build(email(), []);
    const [first, second] = (await Promise.all(recipients(2).map((r) => skeleton.forRecipient(r)))).map(partsOf);

    expect(first?.[1]).toBe(second?.[1]);
    expect((await simpleParser(Buffer.concat(first ?? []))).html).toBe(email().html);
  });

  it('when the HTML does not vary by recipient, then every recipient gets the one message compiled whole', async () => {
    const skeleton = await MessageSkeleton.build(email(), [], { varyHtml: false });
    const [first, second] = await Promise.all(recipients(2).map((r) => skeleton.forRecipient(r)));

    expect(first).toBe(skeleton.prefix);
    expect(second).toBe(skeleton.prefix);
    expect((await simpleParser(skeleton.prefix)).html).toBe(email().html);
  });

  it('when a display name holds what reads as an encoded-word, or runs of spaces, then a reader gets the name as given', async () => {
    const names = ['=?utf-8?q?from?= Team', 'a  b   c', '=?utf-8?q?fake?=', 'Plain Name', 'O\'Brien, "Ops"'];
    const skeleton = await MessageSkeleton.build(
      email({ from: `"${names[0]}" <f@mailroom.test>`, to: names.slice(1).map((name, i) => `"${name.replace(/["\\]/g, '\\$&')}" <t${i}@example.test>`) }),
      [],
      { varyHtml: false },
    );
    const parsed = await simpleParser(skeleton.prefix);
    expect(parsed.from?.value.map((a) => a.name)).toEqual([names[0]]);
    const to = Array.isArray(parsed.to) ? parsed.to.flatMap((t) => t.value) : (parsed.to?.value ?? []);
    expect(to.map((a) => a.name)).toEqual(names.slice(1));
  });

  it('when the email has HTML and an empty text, then the text is an empty text/plain part beside the HTML; its Date is when the send was accepted, on every attempt', async () => {
    const acceptedAt = new Date('2026-11-20T08:00:00.000Z');
    for (const attempt of [1, 2]) {
      const skeleton = await MessageSkeleton.build(email({ text: '', acceptedAt }), [], { varyHtml: false });
      const message = skeleton.prefix.toString('latin1');
      expect([attempt, /multipart\/alternative/.test(message), /Content-Type: text\/plain/.test(message)]).toEqual([attempt, true, true]);
      const parsed = await simpleParser(skeleton.prefix);
      expect(parsed.text ?? '').toBe('');
      expect(parsed.date?.toISOString()).toBe(acceptedAt.toISOString());
    }
  });

  it('when a forwarded message (message/*, written as is) has bare CRs and LFs, then they are written CRLF as SMTP would send them, and other attachments keep their bytes', async () => {
    const forwarded = 'Subject: inner\r\n\r\none\rtwo\nthree\r\n.dot\rend\r';
    const binary = Buffer.from('bytes\rwith\nbare\r\rbreaks');
    const attachments: OutgoingAttachment[] = [
      { filename: 'fwd.eml', contentType: null, contentId: null, content: Buffer.from(forwarded) },
      { filename: 'inner', contentType: 'message/rfc822', contentId: null, content: Buffer.from(forwarded) },
      attachment(binary),
    ];
    const skeleton = await MessageSkeleton.build(email({ html: null }), attachments);
    const raw = skeleton.prefix.toString('latin1');

    // A bare CR would be signed as a character and arrive as a line break (the DATA stream makes it CRLF).
    expect(raw).not.toMatch(/\r(?!\n)|(?<!\r)\n/);
    const written = 'Subject: inner\r\n\r\none\r\ntwo\r\nthree\r\n.dot\r\nend\r\n';
    expect(raw.split(written)).toHaveLength(3);
    const parsed = await simpleParser(skeleton.prefix);
    expect(parsed.attachments.find((a) => a.filename === 'data.bin')?.content.equals(binary)).toBe(true);
  });

  it('when attachments have no Content-ID, then each is an attachment, a forwarded message too; with one it is inline', async () => {
    const attachments: OutgoingAttachment[] = [
      { filename: 'fwd.eml', contentType: null, contentId: null, content: Buffer.from('Subject: inner\r\n\r\nbody\r\n') },
      attachment(Buffer.from('bytes')),
      { filename: 'logo.png', contentType: 'image/png', contentId: 'logo@acme', content: Buffer.from('png') },
    ];
    // Without HTML the whole message is compiled once, into the prefix.
    const skeleton = await MessageSkeleton.build(email({ html: null }), attachments);
    const dispositions = skeleton.prefix
      .toString('latin1')
      .split('\r\n')
      .filter((line) => /^Content-Disposition:/i.test(line));
    expect(dispositions).toEqual(['Content-Disposition: attachment; filename=fwd.eml', 'Content-Disposition: attachment; filename=data.bin', 'Content-Disposition: inline; filename=logo.png']);
  });

  it('when the subject or a custom header holds an RFC 2047 encoded-word typed literally, or starts with white space, then it is sent encoded and reads back as given', async () => {
    const subject = 'Re: =?utf-8?q?x?= typed literally';
    const headers = { 'X-Lookalike': '=?ISO-8859-1?Q?caf=E9?=', 'X-Leading': '  two spaces first', 'X-Plain': 'plain  text', 'X-Grusse': 'Grüße =?utf-8?q?x?=' };
    const skeleton = await MessageSkeleton.build(email({ subject, headers, html: null }), []);
    const parsed = await simpleParser(skeleton.prefix);

    // Before, "=?utf-8?q?x?=" went out as it is, and every receiver decoded it to "x".
    expect(parsed.subject).toBe(subject);
    const header = (name: string) => libmime.decodeWords(parsed.headerLines.find((h) => h.key === name)?.line.replace(/^[^:]*: ?/, '').replace(/\r\n[ \t]/g, ' ') ?? '');
    expect(header('x-lookalike')).toBe('=?ISO-8859-1?Q?caf=E9?=');
    expect(header('x-grusse')).toBe('Grüße =?utf-8?q?x?=');
    expect(unstructuredHeaderText('  two spaces first')).toMatch(/^=\?UTF-8\?Q\?__two_spaces_first\?=$/);
    // Plain ASCII is written as it is.
    expect(skeleton.prefix.toString('latin1')).toContain('\r\nX-Plain: plain  text\r\n');
  });

  it('when list and threading headers start with white space or hold "=?", then they are written as given, not as encoded-words (they are structured)', async () => {
    const headers = { 'List-Unsubscribe': '  <https://example.test/u>', 'In-Reply-To': '<a=?b?q?c?=@example.test>' };
    const raw = (await MessageSkeleton.build(email({ html: null, headers }), [])).prefix.toString('latin1');

    expect(raw).toMatch(/(^|\r\n)List-Unsubscribe: +<https:\/\/example\.test\/u>\r\n/);
    expect(raw).toContain('\r\nIn-Reply-To: <a=?b?q?c?=@example.test>\r\n');
  });

  it('when a List-Id has a non-ASCII phrase, then only the phrase is encoded and its <id> stays readable (RFC 2919)', async () => {
    const headers = { 'List-Id': 'Acme — Neuigkeiten <news.acme.example>' };
    const raw = (await MessageSkeleton.build(email({ html: null, headers }), [])).prefix.toString('latin1');
    const line = /(?:^|\r\n)List-Id: ([^\r]*(?:\r\n[ \t][^\r]*)*)\r\n/i.exec(raw)?.[1]?.replace(/\r\n[ \t]/g, ' ');

    // Before, the whole value was one encoded-word, the id inside it.
    expect(line).toMatch(/^=\?UTF-8\?Q\?[^ ]*\?= <news\.acme\.example>$/);
    expect(libmime.decodeWords(line ?? '')).toBe('Acme — Neuigkeiten <news.acme.example>');
    expect(listIdText('Plain list <plain.example>')).toBe('Plain list <plain.example>');
    expect(listIdText('<only.example>')).toBe('<only.example>');
  });

  it.each([
    ['compiled whole', false],
    ['per recipient', true],
  ])('when text and HTML written with LF are base64-encoded (%s), then their decoded lines end in CRLF, as RFC 2045 requires of text', async (_how, varyHtml) => {
    const text = '日本語のテキスト。\n'.repeat(20);
    const html = `<p>${'日本語のテキスト。'.repeat(20)}</p>\n<p>終わり</p>\r\n<p>cr</p>\r`;
    const skeleton = await MessageSkeleton.build(email({ text, html, hasAttachments: false }), [], { varyHtml });
    const raw = Buffer.concat(partsOf(await skeleton.forRecipient({ id: 'rcpt_1', address: 'one@example.test' }))).toString('latin1');
    const decoded = (type: string) => Buffer.from(partBody(raw, type).join(''), 'base64').toString('utf8');

    expect(raw).toContain('Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64');
    expect(raw).toContain('Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: base64');
    expect(decoded('text/plain')).toBe(text.replace(/\n/g, '\r\n'));
    expect(decoded('text/html')).toBe(html.replace(/\r\n|\r|\n/g, '\r\n'));
  });

  it('when the email has no HTML, then every recipient gets the one compiled message', async () => {
    const skeleton = await MessageSkeleton.build(email({ html: null }), []);
    const message = await skeleton.forRecipient({ id: 'rcpt_1', address: 'one@example.test' });

    expect(message).toBe(skeleton.prefix);
    const parsed = await simpleParser(skeleton.prefix);
    expect(parsed.text).toBe('Hello\n');
    expect(parsed.html).toBe(false);
  });
});
