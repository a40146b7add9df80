import { createRequire } from 'node:module';
import { createResolver } from '@mailroom/core';
import { authenticate } from 'mailauth';
import { type AddressObject, simpleParser } from 'mailparser';
import { DnsServer } from '../../../test/support/dns-server';
import { publish } from '../../../test/support/published-records';
import { startSendingStack, waitForEmail, type SendingStack } from '../../../test/support/sending';
import { SmtpSink, type SinkMessage } from '../../../test/support/smtp-sink';

// libmime (the decoder mailparser and many MTAs use) comes with mailparser; no types of its own.
const libmime = createRequire(require.resolve('mailparser'))('libmime') as {
  decodeWords(value: string): string;
  parseHeaderValue(value: string): { value: string; params: Record<string, string> };
};

const FROM = 'Acme <hello@acme.example>';

/** The header section as received, unfolded into [name, value] pairs (value as on the wire). */
function headerFields(raw: Buffer): [string, string][] {
  const head = raw.toString('latin1').split('\r\n\r\n')[0] ?? '';
  return head
    .split(/\r\n(?![ \t])/)
    .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).replace(/\r\n[ \t]/g, ' ').trim()] as [string, string]);
}

const fieldValues = (raw: Buffer, name: string) => headerFields(raw).filter(([n]) => n.toLowerCase() === name.toLowerCase()).map(([, v]) => v);

/** Every physical line of the message, header and body. */
const lines = (raw: Buffer) => raw.toString('latin1').split('\r\n');

const ENCODED_WORD = /=\?[^?\s]+\?[bBqQ]\?[^?\s]*\?=/g;

/** The RFC 2047 rules every header must keep: encoded words of at most 75 characters, lines of at most 998. */
function expectWellFormed(raw: Buffer) {
  for (const line of lines(raw)) expect(Buffer.byteLength(line, 'latin1')).toBeLessThanOrEqual(998);
  const head = raw.toString('latin1').split('\r\n\r\n')[0] ?? '';
  for (const word of head.match(ENCODED_WORD) ?? []) expect(word.length).toBeLessThanOrEqual(75);
  // 8-bit bytes never appear unencoded in the header (no SMTPUTF8 is asked for).
  expect(/[\x80-\xff]/.test(head)).toBe(false);
}

describe('messages as the receiving world judges them', () => {
  let dns: DnsServer;
  let sink: SmtpSink;
  let s: SendingStack;
  let selector: string;

  beforeAll(async () => {
    dns = await new DnsServer().start();
    sink = await new SmtpSink({ starttls: false }).start();
    s = await startSendingStack('msgprobe', {
      OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
      DNS_SERVERS: dns.address,
      DOMAIN_MX_HOST: 'mx.mailroom.test',
      DOMAIN_SPF_MECHANISMS: 'ip4:127.0.0.1',
    });
    const { body: added } = await s.api.post('/domains', { name: 'acme.example' });
    dns.setZone(publish(added.records));
    const verified = (await s.api.post(`/domains/${added.id}/verify`)).body;
    expect(verified.status).toBe('verified');
    selector = verified.dkimSelector;
  });
  afterAll(async () => {
    await s.close();
    await sink.stop();
    await dns.stop();
  });

  /** Sends through the API and answers every copy the sink received, by recipient. */
  async function send(body: Record<string, unknown>): Promise<{ id: string; copies: SinkMessage[] }> {
    const res = await s.api.post('/emails', { from: FROM, subject: 'Probe', ...body });
    expect(res.status).toBe(200);
    const id = res.body.id as string;
    const email = await waitForEmail(s.api, id, (e) => e.status === 'delivered');
    const copies = sink.messages.filter((m) => m.raw.includes(`<${id}@acme.example>`));
    expect(copies).toHaveLength(email.recipients.length);
    return { id, copies };
  }

  /** DKIM as mailauth (not our code) verifies it: one aligned pass with the domain's key. */
  async function expectDkimPass(message: SinkMessage) {
    const resolver = createResolver([dns.address], 1_000);
    const result = await authenticate(message.raw, {
      ip: '127.0.0.1',
      helo: 'sender.mailroom.test',
      sender: message.from,
      mta: 'mx.receiver.test',
      resolver: ((name: string, type: string) => resolver.resolve(name, type)) as never,
      disableBimi: true,
    } as never);
    expect(result.dkim.results.map((r) => ({ result: r.status.result, domain: r.signingDomain, selector: r.selector }))).toEqual([
      { result: 'pass', domain: 'acme.example', selector },
    ]);
  }

  test('when an email has To, Cc, Bcc and Reply-To, then each copy has its own envelope, To/Cc/Reply-To as given, no Bcc anywhere and no Sender', async () => {
    const { copies } = await send({
      to: ['Ada Lovelace <ada@example.com>', 'bob@example.com'],
      cc: '"Carol, the CFO" <carol@example.com>',
      bcc: ['Secret Person <hidden1@example.net>', 'hidden2@example.net'],
      replyTo: 'Support <support@acme.example>',
      text: 'Hello',
    });
    expect(copies.map((c) => c.recipients).sort()).toEqual([['ada@example.com'], ['bob@example.com'], ['carol@example.com'], ['hidden1@example.net'], ['hidden2@example.net']]);
    for (const copy of copies) {
      const head = copy.raw.toString('latin1').split('\r\n\r\n')[0] ?? '';
      expect(head).not.toMatch(/hidden|Secret Person|^bcc:/im);
      expect(fieldValues(copy.raw, 'Sender')).toEqual([]);
      const parsed = await simpleParser(copy.raw);
      expect((parsed.to as AddressObject).value.map((a) => [a.name, a.address])).toEqual([['Ada Lovelace', 'ada@example.com'], ['', 'bob@example.com']]);
      expect((parsed.cc as AddressObject).value.map((a) => [a.name, a.address])).toEqual([['Carol, the CFO', 'carol@example.com']]);
      expect(parsed.replyTo?.value.map((a) => [a.name, a.address])).toEqual([['Support', 'support@acme.example']]);
      expect(parsed.from?.value.map((a) => [a.name, a.address])).toEqual([['Acme', 'hello@acme.example']]);
      await expectDkimPass(copy);
    }
  });

  test('when the subject and display names hold non-ASCII, emoji, long words, quotes, commas and semicolons, then they are encoded words that decode back exactly', async () => {
    const subject = `Grüße 🎉 aus Köln — ${'Donaudampfschifffahrtsgesellschaftskapitän'.repeat(4)} "quoted", semi; =?utf-8?q?not-a-word?= 日本語のテキスト`;
    const fromName = 'Jürgen "the Boss", Ops; 🚀';
    const toName = 'Zoë Ñúñez-Łukasiewicz, 東京';
    const { copies } = await send({
      from: `"${fromName.replace(/"/g, '\\"')}" <hello@acme.example>`,
      to: `"${toName}" <zoe@example.com>`,
      subject,
      text: 'x',
    });
    const [copy] = copies as [SinkMessage];
    expectWellFormed(copy.raw);
    const [wireSubject] = fieldValues(copy.raw, 'Subject');
    expect(libmime.decodeWords(wireSubject as string)).toBe(subject);
    const parsed = await simpleParser(copy.raw);
    expect(parsed.subject).toBe(subject);
    expect(parsed.from?.value[0]).toMatchObject({ name: fromName, address: 'hello@acme.example' });
    expect((parsed.to as AddressObject).value[0]).toMatchObject({ name: toName, address: 'zoe@example.com' });
    await expectDkimPass(copy);
  });

  test('when a subject is one ASCII word of 997 characters, then it goes on a folded line of its own, under 998, and arrives whole', async () => {
    const subject = `Re ${'a'.repeat(990)}`;
    const { copies } = await send({ to: 'long-subject@example.com', subject, text: 'x' });
    const [copy] = copies as [SinkMessage];
    expectWellFormed(copy.raw);
    expect((await simpleParser(copy.raw)).subject).toBe(subject);
    await expectDkimPass(copy);
  });

  test('when custom headers hold non-ASCII, Unicode line separators (U+2028, U+2029, U+0085) and long values, then each stays one header, encoded or folded, and decodes back exactly', async () => {
    const headers = {
      'X-Campaign': 'Frühling 🌷 Angebote',
      'X-Separators': 'one\u2028two\u2029three\u0085four',
      'X-Long': Array.from({ length: 120 }, (_, i) => `word${i}`).join(' '),
      'X-Entity-Ref-ID': 'ref-1',
    };
    const { copies } = await send({ to: 'custom@example.com', headers, text: 'x' });
    const [copy] = copies as [SinkMessage];
    expectWellFormed(copy.raw);
    const names = headerFields(copy.raw).map(([n]) => n.toLowerCase());
    // Nothing was injected: the header names are exactly ours and the user's, each once.
    expect(names.filter((n) => n.startsWith('x-')).sort()).toEqual(['x-campaign', 'x-entity-ref-id', 'x-long', 'x-separators']);
    for (const [name, value] of Object.entries(headers)) {
      expect(libmime.decodeWords(fieldValues(copy.raw, name)[0] as string)).toBe(value);
    }
    await expectDkimPass(copy);
  });

  test('when the user gives one header twice in different case, then the send is refused naming headers, and nothing is sent', async () => {
    const before = sink.messages.length;
    const res = await s.api.post('/emails', { from: FROM, to: 'dup@example.com', subject: 'Dup', text: 'x', headers: { 'X-Entity-Ref-ID': 'a', 'x-entity-ref-id': 'b' } });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ name: 'validation_error', statusCode: 422 });
    expect(res.body.message).toMatch(/headers/);
    expect(sink.messages.length).toBe(before);
  });

  test.each([
    ['subject', { subject: 'a\u0000b' }],
    ['headers', { headers: { 'X-Nul': 'a\u0000b' } }],
    ['text', { text: 'a\u0000b' }],
    ['html', { html: '<p>a\u0000b</p>' }],
    ['attachments', { attachments: [{ filename: 'a\u0000.txt', content: 'eA==' }] }],
  ])('when %s holds a NUL character, then the send is a 422 naming that field', async (field, body) => {
    const res = await s.api.post('/emails', { from: FROM, to: 'nul@example.com', subject: 'Nul', text: 'x', ...body });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ name: 'validation_error', statusCode: 422 });
    expect(res.body.message).toContain(field);
  });

  test('when bodies have lines over 998 octets, 8-bit text, leading dots, lone CR and LF, then every line is under 998, charsets are utf-8, text comes first and both arrive intact', async () => {
    const long = `${'é'.repeat(600)}${'x'.repeat(900)}`;
    const text = `Hello 👋\n.\n.leading dot\n..two dots\n${long}\nlone\rcr and lone\nlf\n${'y'.repeat(2000)}\nend`;
    const html = `<p>${'z'.repeat(3000)}</p>\n.<b>dot</b>\n<p>Grüße</p>`;
    const { copies } = await send({ to: 'bodies@example.com', text, html });
    const [copy] = copies as [SinkMessage];
    expectWellFormed(copy.raw);
    const raw = copy.raw.toString('latin1');
    expect(raw).toMatch(/Content-Type: text\/plain; charset=utf-8\r\nContent-Transfer-Encoding: (quoted-printable|base64)/);
    expect(raw).toMatch(/Content-Type: text\/html; charset=utf-8\r\nContent-Transfer-Encoding: (quoted-printable|base64)/);
    expect(raw.indexOf('text/plain')).toBeLessThan(raw.indexOf('text/html'));
    expect(raw).toMatch(/Content-Type: multipart\/alternative/);
    const parsed = await simpleParser(copy.raw);
    // The lone CR is a line break (as the sender documents); everything else arrives as given.
    expect(parsed.text?.replace(/\r\n/g, '\n')).toBe(text.replace('\r', '\n'));
    expect(parsed.html).toBe(html);
    await expectDkimPass(copy);
  });

  test('when an email is text only or HTML only, then it is a single part of that type with charset utf-8', async () => {
    const textOnly = (await send({ to: 'text-only@example.com', text: 'Just text, naïve' })).copies[0] as SinkMessage;
    const htmlOnly = (await send({ to: 'html-only@example.com', html: '<p>Just HTML</p>' })).copies[0] as SinkMessage;
    expect(fieldValues(textOnly.raw, 'Content-Type')).toEqual(['text/plain; charset=utf-8']);
    expect(fieldValues(htmlOnly.raw, 'Content-Type')).toEqual(['text/html; charset=utf-8']);
    // A single part's body runs to the message's final CRLF, which SMTP needs before its dot.
    expect((await simpleParser(textOnly.raw)).text?.replace(/\n$/, '')).toBe('Just text, naïve');
    expect(String((await simpleParser(htmlOnly.raw)).html).replace(/\n$/, '')).toBe('<p>Just HTML</p>');
    for (const m of [textOnly, htmlOnly]) await expectDkimPass(m);
  });

  test('when the text is empty, then the message still has a text/plain part, an empty body, and verifies', async () => {
    const [copy] = (await send({ to: 'empty@example.com', text: '' })).copies as [SinkMessage];
    const parsed = await simpleParser(copy.raw);
    expect(parsed.text ?? '').toBe('');
    expect(fieldValues(copy.raw, 'Content-Type')[0]).toMatch(/^text\/plain/);
    await expectDkimPass(copy);
  });

  test('when the HTML is empty (alone, beside a text, with tracking on), then the email is delivered: an empty HTML is no HTML part, never a send stuck in queued', async () => {
    for (const body of [{ html: '' }, { html: '', text: 'Just text' }, { html: '', text: '' }, { html: '', trackOpens: true, trackClicks: true }]) {
      const [copy] = (await send({ to: 'nohtml@example.com', ...body })).copies as [SinkMessage];
      expect([body, fieldValues(copy.raw, 'Content-Type').some((v) => /text\/html/i.test(v))]).toEqual([body, false]);
      const parsed = await simpleParser(copy.raw);
      expect([body, (parsed.text ?? '').trim()]).toEqual([body, ('text' in body ? body.text : '') ?? '']);
      await expectDkimPass(copy);
    }
  });

  test('when a forwarded message has a line over 998 octets, then it goes as application/octet-stream in base64, byte for byte, and no line of the mail is too long; a short one stays message/rfc822', async () => {
    const long = Buffer.from(`Subject: fwd\r\n\r\n${'x'.repeat(1_210)}\r\n`);
    const short = Buffer.from('Subject: fwd\r\n\r\nshort\r\n');
    const { copies } = await send({
      to: 'fwd@example.com',
      text: 'Forwarded',
      attachments: [
        { filename: 'long.eml', content: long.toString('base64') },
        { filename: 'long2', content: long.toString('base64'), contentType: 'message/rfc822' },
        { filename: 'short.eml', content: short.toString('base64') },
      ],
    });
    const [copy] = copies as [SinkMessage];
    expect(Math.max(...copy.raw.toString('latin1').split('\r\n').map((line) => line.length))).toBeLessThanOrEqual(998);
    // As declared in the part's own header (mailparser would guess message/rfc822 again from a .eml name).
    const partTypes = [...copy.raw.toString('latin1').matchAll(/^Content-Type: ([^\r\n]*(?:\r\n[ \t][^\r\n]*)*)/gim)].map((m) => (m[1] as string).replace(/\s+/g, ' '));
    const declared = partTypes.filter((v) => /name=/.test(v));
    expect(declared).toEqual(['application/octet-stream; name=long.eml', 'application/octet-stream; name=long2', 'message/rfc822; name=short.eml']);
    const parsed = await simpleParser(copy.raw);
    expect(parsed.attachments.map((a) => [a.filename, a.content.equals(a.filename === 'short.eml' ? short : long)])).toEqual([
      ['long.eml', true],
      ['long2', true],
      ['short.eml', true],
    ]);
    await expectDkimPass(copy);
  });

  test('when attachments have non-ASCII names, given and guessed types, an inline image and an empty file, then parsers read each name and byte exactly', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const attachments = [
      { filename: 'Résumé – Zoë Łukasiewicz (2024) 📄 with a rather long name indeed.pdf', content: Buffer.from('%PDF-1.4 fake').toString('base64') },
      { filename: 'données.csv', content: Buffer.from('a,b\n1,2\n').toString('base64'), contentType: 'text/csv' },
      { filename: 'logo.png', content: png.toString('base64'), contentId: 'logo@acme' },
      { filename: 'empty.txt', content: '' },
    ];
    const { copies } = await send({ to: 'files@example.com', text: 'See attached', html: '<p><img src="cid:logo@acme"></p>', attachments });
    const [copy] = copies as [SinkMessage];
    expectWellFormed(copy.raw);
    const parsed = await simpleParser(copy.raw);
    const byName = new Map(parsed.attachments.map((a) => [a.filename, a]));
    expect([...byName.keys()].sort()).toEqual(attachments.map((a) => a.filename).sort());
    for (const a of attachments) expect(byName.get(a.filename)?.content.equals(Buffer.from(a.content, 'base64'))).toBe(true);
    expect(byName.get(attachments[0]!.filename)?.contentType).toBe('application/pdf');
    expect(byName.get('données.csv')?.contentType).toBe('text/csv');
    expect(byName.get('logo.png')).toMatchObject({ contentType: 'image/png', cid: 'logo@acme', contentDisposition: 'inline' });
    expect(byName.get('empty.txt')?.size).toBe(0);

    // The non-ASCII name both ways clients read it: RFC 2231 filename* in Content-Disposition
    // (Gmail, Apple Mail, Thunderbird) and an encoded word in Content-Type's name (Outlook).
    const raw = copy.raw.toString('latin1');
    const pdfPart = raw.slice(raw.indexOf('Content-Type: application/pdf'));
    const partHead = pdfPart.slice(0, pdfPart.indexOf('\r\n\r\n')).replace(/\r\n[ \t]/g, ' ');
    expect(partHead).toMatch(/filename\*0\*=utf-8''/i);
    const name = /name="([^"]+)"/.exec(partHead)?.[1] ?? '';
    expect(libmime.decodeWords(name.replace(/\?= =\?/g, '?==?'))).toBe(attachments[0]!.filename);
    // The inline image sits with the HTML in multipart/related, referenced by its Content-ID.
    expect(raw).toMatch(/multipart\/related/);
    expect(raw).toContain('Content-ID: <logo@acme>');
    await expectDkimPass(copy);
  });

  test('when emails are sent, then Date, Message-ID and MIME-Version appear exactly once, well formed, and Message-IDs are unique at the sending domain', async () => {
    const ids = new Set<string>();
    for (const to of ['once-1@example.com', 'once-2@example.com']) {
      const { id, copies } = await send({ to, text: 'x' });
      const [copy] = copies as [SinkMessage];
      for (const name of ['Date', 'Message-ID', 'MIME-Version', 'From', 'To', 'Subject', 'Content-Type']) expect(fieldValues(copy.raw, name)).toHaveLength(1);
      expect(fieldValues(copy.raw, 'MIME-Version')).toEqual(['1.0']);
      const [date] = fieldValues(copy.raw, 'Date') as [string];
      expect(date).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}$/);
      expect(Math.abs(new Date(date).getTime() - Date.now())).toBeLessThan(10 * 60_000);
      const [messageId] = fieldValues(copy.raw, 'Message-ID') as [string];
      expect(messageId).toBe(`<${id}@acme.example>`);
      ids.add(messageId);
    }
    expect(ids.size).toBe(2);
  });

  test('when the user sends RFC 8058 one-click unsubscribe headers, then they arrive once each, and the DKIM signature covers both', async () => {
    const unsubscribe = '<https://acme.example/unsubscribe?u=42&t=abc>, <mailto:unsubscribe@acme.example?subject=unsubscribe>';
    const { copies } = await send({
      to: 'list@example.com',
      text: 'Newsletter',
      headers: { 'List-Unsubscribe': unsubscribe, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click', 'List-Id': 'News <news.acme.example>' },
    });
    const [copy] = copies as [SinkMessage];
    expect(fieldValues(copy.raw, 'List-Unsubscribe')).toEqual([unsubscribe]);
    expect(fieldValues(copy.raw, 'List-Unsubscribe-Post')).toEqual(['List-Unsubscribe=One-Click']);
    const [signature] = fieldValues(copy.raw, 'DKIM-Signature') as [string];
    const signed = (/\bh=([^;]+)/.exec(signature)?.[1] ?? '').replace(/\s+/g, '').toLowerCase().split(':');
    expect(signed).toEqual(expect.arrayContaining(['from', 'to', 'subject', 'date', 'message-id', 'list-unsubscribe', 'list-unsubscribe-post', 'list-id']));
    await expectDkimPass(copy);
  });

  test('when list headers are given in lower case, then they are still DKIM-signed', async () => {
    const { copies } = await send({
      to: 'list-lower@example.com',
      text: 'Newsletter',
      headers: { 'list-unsubscribe': '<https://acme.example/u/1>', 'list-unsubscribe-post': 'List-Unsubscribe=One-Click' },
    });
    const [copy] = copies as [SinkMessage];
    const [signature] = fieldValues(copy.raw, 'DKIM-Signature') as [string];
    const signed = (/\bh=([^;]+)/.exec(signature)?.[1] ?? '').replace(/\s+/g, '').toLowerCase().split(':');
    expect(signed).toEqual(expect.arrayContaining(['list-unsubscribe', 'list-unsubscribe-post']));
    await expectDkimPass(copy);
  });

  test('when threading headers and awkward file names are given, then they arrive as given, folded under 998', async () => {
    const references = Array.from({ length: 20 }, (_, i) => `<thread-${i}.${'r'.repeat(20)}@acme.example>`).join(' ');
    const filenames = ['quote "me"; semi, comma.txt', `${'long-ascii-name-'.repeat(8)}.txt`, 'back\\slash=eq?.txt'];
    const { copies } = await send({
      to: 'thread@example.com',
      text: 'Reply',
      headers: { 'In-Reply-To': '<thread-19.x@acme.example>', References: references },
      attachments: filenames.map((filename) => ({ filename, content: 'eA==' })),
    });
    const [copy] = copies as [SinkMessage];
    expectWellFormed(copy.raw);
    const parsed = await simpleParser(copy.raw);
    expect(parsed.inReplyTo).toBe('<thread-19.x@acme.example>');
    expect(parsed.references).toEqual(references.split(' '));
    expect(parsed.attachments.map((a) => a.filename).sort()).toEqual([...filenames].sort());
    await expectDkimPass(copy);
  });

  test('when the subject is empty, then the message is still delivered and verifies', async () => {
    const [copy] = (await send({ to: 'no-subject@example.com', subject: '', text: 'x' })).copies as [SinkMessage];
    expect((await simpleParser(copy.raw)).subject ?? '').toBe('');
    await expectDkimPass(copy);
  });
});
