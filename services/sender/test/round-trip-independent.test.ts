import { createHash } from 'node:crypto';
import { domainToASCII } from 'node:url';
import { deriveKey, TrackingTokens } from '@mailroom/core';
import { TEST_SECRET_KEY } from '../../../test/support/gateway';
import { isFinished, startSendingStack, waitForEmail, type SendingStack } from '../../../test/support/sending';
import { SmtpSink, type SinkMessage } from '../../../test/support/smtp-sink';
import { type ClientMailbox, type ClientView, readEmail } from './support/read-email';

/*
 * What an application submits to POST /emails is what a receiving mail client reads. Awkward
 * sends go through the real gateway and sender to an SMTP sink, and each copy is read by
 * Python's standard-library `email` package (support/read-email.py), a parser independent of
 * nodemailer and mailparser (which share an author, so a mistake both make would pass with
 * them), and compared field by field with what was submitted.
 *
 * Every copy must also be 7-bit throughout and read without defects. The equivalences below are
 * applied to the submitted side (never to what was read); anything else Python reads otherwise
 * is either fixed or an entry of ALLOW, where Python is the outlier by the RFCs:
 * - a text body's line breaks are CRLF in canonical form (RFC 2046 §4.1.1): CRLF, LF and a
 *   bare CR are each one line break, and what is read must hold CRLF only;
 * - a single-part message's body ends with a line break (RFC 5321 §4.1.1.4: DATA ends with
 *   CRLF "." CRLF), so a body given without one is read with one more;
 * - an internationalized domain travels as its A-label (punycode), as the header section is
 *   ASCII without SMTPUTF8 (README "Sending"), lower-case (nodemailer so writes an A-label
 *   given in capitals);
 * - an empty subject or custom header value is no field at all, and an empty text beside HTML
 *   no text part: nodemailer writes none of them, and each reads as absent (a decision, not an
 *   RFC's: RFC 5322 §3.6.5 makes Subject optional).
 */

const TRACKING_BASE_URL = 'https://t.mailroom.test';

interface Mailbox {
  name: string;
  address: string;
  /** Written as a bare phrase, `Name <a@x>`, instead of a quoted-string. */
  phrase?: boolean;
}

/**
 * Where Python's reading is the outlier (RFC-wise): the other reading the comparison uses
 * instead (read-email.py's `legacy` name, or the attachment's `filenameParam`), and why.
 */
interface Allowance {
  reading: 'decoded' | 'quoted' | 'filenameParam';
  reason: string;
}

const ALLOW = {
  encodedWordSpace: {
    reading: 'decoded',
    reason: "CPython's headerregistry keeps the white space between adjacent encoded-words of a display name, which RFC 2047 §6.2 says to ignore; email.header.decode_header ignores it",
  },
  encodedWordRun: {
    reading: 'decoded',
    reason: "CPython's headerregistry collapses a run of spaces inside a display name's encoded-word (`Zo=C3=AB__Two`), whose encoded text RFC 2047 §4.2 makes literal; email.header.decode_header keeps it",
  },
  filenameStripped: {
    reading: 'filenameParam',
    reason: "CPython's Message.get_filename() strips white space around the name; RFC 2183's quoted-string (or RFC 2231's value) keeps it",
  },
} satisfies Record<string, Allowance>;

interface Attachment {
  filename: string;
  content: Buffer;
  contentType?: string;
  contentId?: string;
  /** The type a client sees when none is given: guessed from the name. */
  guessedType?: string;
}

interface Case {
  name: string;
  from?: Mailbox;
  to: Mailbox[];
  cc?: Mailbox[];
  replyTo?: Mailbox[];
  subject: string;
  text?: string;
  html?: string;
  headers?: Record<string, string>;
  attachments?: Attachment[];
  /** Open and click tracking on; the links of `html` that get tracked, in order: as written and as the redirect goes. */
  tracked?: { written: string; url: string }[];
  /** Fields ("from.0.name", "attachment:<filename>") where Python is the outlier; see ALLOW. */
  allow?: Record<string, Allowance>;
}

const mb = (name: string, address: string, phrase = false): Mailbox => ({ name, address, ...(phrase ? { phrase } : {}) });
const ALICE = mb('', 'alice@example.com');
const FROM = mb('Acme', 'hello@acme.example');

/** The mailbox as an application writes it for the API: bare, a phrase, or an RFC 5322 quoted-string. */
function written(m: Mailbox): string {
  if (m.name === '') return m.address;
  if (m.phrase) return `${m.name} <${m.address}>`;
  return `"${m.name.replace(/[\\"]/g, '\\$&')}" <${m.address}>`;
}

/** The address as it travels: an internationalized domain as its A-label, lower-cased (as an A-label given in capitals). */
function asciiAddress(address: string): string {
  const at = address.lastIndexOf('@');
  const domain = address.slice(at + 1);
  return /^[\x20-\x7e]*$/.test(domain) && !/(?:^|\.)xn--/i.test(domain) ? address : `${address.slice(0, at)}@${domainToASCII(domain)}`;
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const utf8 = (text: string) => Buffer.from(text, 'utf8');
const lineBreaks = (text: string) => text.replace(/\r\n|\r|\n/g, '\n');
const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const LONG_NAME = 'Zoë Ñúñez-Łukasiewicz von Hohenzollern, Abteilung für Öffentlichkeitsarbeit 東京 🚀';

const CASES: Case[] = [
  {
    name: 'non-ASCII and emoji display names and subject',
    from: mb('Zoë Ünïcødé 🚀', 'hello@acme.example', true),
    to: [mb('José Müller', 'jose@example.com')],
    subject: 'Grüße aus Köln 🎉 — 日本語',
    text: 'Hello',
  },
  {
    name: 'a very long non-ASCII subject and display name, folded over several lines',
    from: mb(LONG_NAME, 'hello@acme.example'),
    to: [ALICE],
    subject: `Ihre Bestellung bei Müller & Söhne ist unterwegs — ${'Lieferung 📦 nach Zürich '.repeat(16)}Ende`,
    text: 'Long',
    allow: { 'from.0.name': ALLOW.encodedWordSpace },
  },
  {
    name: 'a subject and display name mixing ASCII words and non-ASCII',
    from: mb('Support Team (München)', 'hello@acme.example'),
    to: [mb('Ada Lovelace, née Byron', 'ada@example.com')],
    subject: 'Invoice 2024-001 für Zoë: 3 items, total €42.00 (paid) — thanks!',
    text: 'Mixed',
  },
  {
    name: 'display names with quotes, commas, backslashes, parentheses, semicolons and colons',
    from: mb('Doe, John "JD" (Sales) \\ Ops; Team: A', 'hello@acme.example'),
    to: [mb('O\'Brien, "Mac"', 'mac@example.com'), mb('back\\slash\\', 'back@example.com'), mb('(not a comment)', 'paren@example.com')],
    subject: 'Specials',
    text: 'Specials',
  },
  {
    name: 'RFC 2047 look-alikes typed literally in an ASCII subject',
    to: [ALICE],
    subject: 'Re: =?utf-8?q?x?= and =?UTF-8?B?eA==?= typed literally',
    text: 'Look-alikes',
  },
  {
    name: 'an RFC 2047 look-alike as a whole ASCII subject, and one in a custom header',
    to: [ALICE],
    subject: '=?utf-8?q?x?=',
    headers: { 'X-Lookalike': 'see =?utf-8?q?x?= here', 'X-Lookalike-Whole': '=?ISO-8859-1?Q?caf=E9?=' },
    text: 'Look-alikes',
  },
  {
    name: 'RFC 2047 look-alikes in display names (quoted, phrase, and with non-ASCII)',
    from: mb('=?utf-8?q?x?=', 'hello@acme.example'),
    to: [mb('=?utf-8?q?y?=', 'y@example.com', true), mb('Zoë =?utf-8?q?z?=', 'z@example.com')],
    subject: 'Look-alike names',
    text: 'Look-alikes',
  },
  {
    name: 'runs of spaces in display names (quoted and as a phrase)',
    from: mb('Acme   Support', 'hello@acme.example'),
    to: [mb('a  b   c', 'abc@example.com'), mb('Zoë  Two', 'z@example.com')],
    subject: 'Spaced names',
    text: 'Runs of spaces',
    allow: { 'to.1.name': ALLOW.encodedWordRun },
  },
  {
    name: 'a subject with leading and trailing white space, tabs and runs of spaces',
    to: [ALICE],
    subject: '  Leading,\tinner  runs,   trailing  ',
    text: 'White space',
  },
  { name: 'an empty subject', to: [ALICE], subject: '', text: 'No subject' },
  { name: 'a subject of spaces only', to: [ALICE], subject: '   ', text: 'Blank subject' },
  {
    name: 'a long ASCII subject and display name, folded over several lines',
    from: mb(`Acme ${'Customer Success Team '.repeat(8)}(EMEA)`, 'hello@acme.example'),
    to: [ALICE],
    subject: `Your order ${Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ')} end`,
    text: 'Long ASCII',
  },
  {
    name: 'internationalized domains in From and To',
    from: mb('Bücherei', 'info@bücher.example'),
    to: [mb('Jürgen', 'juergen@bücher.example'), mb('', 'tanaka@例え.テスト'), mb('Иван', 'ivan@пример.рф')],
    subject: 'IDN',
    text: 'IDN',
  },
  {
    name: 'local parts with every atext special, and an A-label in capitals',
    to: [mb('', "!#$%&'*+/=?^_`{|}~-@example.com"), mb('Slash Pipe', '{ana}|a/b@example.com', true), mb('', 'ivan@XN--E1AFMKFD.XN--P1AI')],
    replyTo: [mb('J. R. Doe', 'j.r%doe@example.com', true)],
    subject: 'atext',
    text: 'atext',
  },
  {
    name: 'several To, Cc and Reply-To addresses',
    to: [ALICE, mb('Bob Example', 'bob@example.com'), mb('Çarol Ünïcødé', 'carol@example.com')],
    cc: [mb('Dave, the CFO', 'dave@example.com'), mb('', 'erin@example.com')],
    replyTo: [mb('Support', 'support@acme.example'), mb('', 'sales@acme.example'), mb('Ærø Help', 'help@acme.example')],
    subject: 'Lists',
    text: 'Lists',
  },
  {
    name: 'custom headers with non-ASCII, mixed, long and white-space values',
    to: [ALICE],
    subject: 'Headers',
    headers: {
      'X-Campaign': 'Frühling 🌷 Angebote',
      'X-Mixed': 'ASCII words, then Grüße, then ASCII again',
      'X-Long': Array.from({ length: 120 }, (_, i) => `word${i}`).join(' '),
      'X-Long-Unicode': 'Überlänge '.repeat(60).trim(),
      'X-Spaces': 'a  b\t\tc   d',
      'List-Id': 'Acme — Neuigkeiten <news.acme.example>',
      'X-Entity-Ref-ID': 'ref-123',
      'X-Blank': '   ',
      'X-Empty': '',
    },
    text: 'Headers',
  },
  {
    name: 'text and HTML with lines over 998 characters',
    to: [ALICE],
    subject: 'Long lines',
    text: `${'x'.repeat(5000)}\n${'é'.repeat(1500)}\n${'word '.repeat(400)}\nend`,
    html: `<p>${'y'.repeat(3000)}</p>\n<p>${'ü'.repeat(1200)}</p>`,
  },
  {
    name: 'text with CRLF, LF and bare CR line breaks mixed',
    to: [ALICE],
    subject: 'Line breaks',
    text: 'crlf\r\nlf\ncr\rcr-cr\r\rlf-lf\n\nlf-cr\n\rend\r',
    html: '<p>crlf</p>\r\n<p>lf</p>\n<p>cr</p>\r<p>end</p>',
  },
  {
    name: 'only bare CRs, as an old Mac wrote text',
    to: [ALICE],
    subject: 'CR only',
    text: 'one\rtwo\r\rfour',
  },
  {
    name: 'lines starting with dots and "From "',
    to: [ALICE],
    subject: 'Dots',
    text: '.\n..\n.leading dot\n. dot space\nFrom the start of a line\n>From quoted\nFrom: not a header\n.',
    html: '<pre>\n.\n..\nFrom here\n</pre>\n.',
  },
  {
    name: 'trailing spaces and tabs, white-space-only lines and trailing blank lines',
    to: [ALICE],
    subject: 'Trailing',
    text: 'trailing spaces   \ntrailing tabs\t\t\n \n\t\n  indented\nend  \n\n\n',
    html: '<p>a  </p>   \n\t\n<p>b \t c</p>\t \n\n',
  },
  {
    name: 'text and HTML with non-ASCII, mostly ASCII (quoted-printable)',
    to: [ALICE],
    subject: 'QP bodies',
    text: 'Ünïcödé ☃ — naïve café, 日本語.\nSecond line ✓ = equals =3D and =?utf-8?q?x?=\n',
    html: '<p>Ünïcödé ☃ — naïve café</p><p>日本語 ✓ =3D</p>',
  },
  {
    name: 'text and HTML mostly non-ASCII (base64), with LF line breaks',
    to: [ALICE],
    subject: 'Base64 bodies',
    text: '日本語のテキスト。\n'.repeat(40),
    html: `<p>${'日本語のテキスト。'.repeat(40)}</p>\n<p>終わり</p>\n`,
  },
  {
    name: 'attachments with non-ASCII, very long, space-containing and special file names',
    to: [ALICE],
    subject: 'File names',
    text: 'See attached',
    attachments: [
      { filename: 'Résumé – Zoë Łukasiewicz (2024) 📄.pdf', content: utf8('%PDF-1.4 fake'), guessedType: 'application/pdf' },
      { filename: `${'Quarterly report for the financial year, long name '.repeat(4)}end.txt`, content: utf8('long'), contentType: 'text/plain' },
      { filename: `${'Jahresübersicht '.repeat(14)}Ende.csv`, content: utf8('a,b\n1,2\n'), contentType: 'text/csv' },
      { filename: 'my file  with   spaces .txt', content: utf8('spaces'), contentType: 'text/plain' },
      { filename: 'quote "me"; semi, comma \\ back (1).txt', content: utf8('specials'), contentType: 'text/plain' },
      { filename: '=?utf-8?q?x?=', content: utf8('lookalike'), contentType: 'application/octet-stream' },
      { filename: 'see =?utf-8?q?x?= here.txt', content: utf8('lookalike'), contentType: 'text/plain' },
    ],
  },
  {
    name: 'a binary attachment holding all 256 byte values',
    to: [ALICE],
    subject: 'Binary',
    text: 'Bytes',
    attachments: [
      { filename: 'bytes.bin', content: ALL_BYTES, contentType: 'application/octet-stream' },
      { filename: 'bytes-twice.dat', content: Buffer.concat([ALL_BYTES, ALL_BYTES.reverse()]), guessedType: 'application/octet-stream' },
    ],
  },
  {
    name: 'an inline image with a Content-ID, beside an attachment',
    to: [ALICE],
    subject: 'Inline',
    text: 'Logo',
    html: '<p>Logo: <img src="cid:logo@acme.example" alt="Acme"></p>',
    attachments: [
      { filename: 'logo.png', content: PNG, contentType: 'image/png', contentId: 'logo@acme.example' },
      { filename: 'terms.txt', content: utf8('Terms.\n'), contentType: 'text/plain' },
    ],
  },
  {
    name: 'control characters (tab, VT, FF, ESC, DEL) in the subject, a header, the text and a file name',
    to: [ALICE],
    subject: 'Tab\there, vertical\u000btab, form\u000cfeed, esc\u001b, del\u007f',
    headers: { 'X-Ctl': 'a\u000bb\u000cc\td\u007f' },
    text: 'bel\u0007 vt\u000b ff\u000c esc\u001b del\u007f end',
    attachments: [{ filename: 'tab\there\u0001ctl\u007f.txt', content: utf8('ctl'), contentType: 'text/plain' }],
  },
  {
    name: 'file names with white space around them',
    to: [ALICE],
    subject: 'Spaced names',
    text: 'See attached',
    attachments: [
      { filename: '  leading and trailing spaces  .txt  ', content: utf8('spaces'), contentType: 'text/plain' },
      { filename: ' Grüße ', content: utf8('non-ASCII'), contentType: 'text/plain' },
    ],
    allow: { 'attachment:  leading and trailing spaces  .txt  ': ALLOW.filenameStripped, 'attachment: Grüße ': ALLOW.filenameStripped },
  },
  { name: 'an empty text body, text only', to: [ALICE], subject: 'Empty text', text: '' },
  { name: 'an empty text body beside HTML', to: [ALICE], subject: 'Empty text and HTML', text: '', html: '<p>HTML</p>' },
  { name: 'HTML only, without a final line break', to: [ALICE], subject: 'HTML only', html: '<p>Only HTML ✓</p>' },
  {
    name: 'open and click tracking: the text unchanged, the HTML only where links and the pixel go',
    to: [ALICE, mb('Bob', 'bob@example.com')],
    subject: 'Tracked',
    text: 'Tracked text, https://acme.example/a untouched  \n.dot\n',
    html:
      '<html><head><title>Grüße</title></head><body><p>Grüße ☃ — <a href="https://acme.example/a?x=1&amp;y=2">one</a> ' +
      '<a href="mailto:hello@acme.example">mail</a> <a href="https://acme.example/off" data-mailroom-track="off">off</a> ' +
      "<a href='https://acme.example/naïve'>two</a></p>\n  \n</body></html>\n",
    tracked: [
      { written: 'https://acme.example/a?x=1&amp;y=2', url: 'https://acme.example/a?x=1&y=2' },
      { written: 'https://acme.example/naïve', url: 'https://acme.example/na%C3%AFve' },
    ],
  },
];

/** Sends the API refuses instead of sending something a client would read otherwise. */
const REFUSED: { name: string; send: Record<string, unknown>; field: string }[] = [
  { name: 'an internationalized local part (needs SMTPUTF8 on every hop)', send: { to: 'jürgen@example.com' }, field: 'to' },
  { name: 'an internationalized local part in From', send: { from: 'zoë@acme.example' }, field: 'from' },
  { name: 'an "@" in a display name (it could pass for another address)', send: { to: '"alice@example.com" <mallory@example.net>' }, field: 'to' },
  { name: 'an unquoted comment in a display name', send: { to: 'Ann (Sales) <ann@example.com>' }, field: 'to' },
  {
    name: 'a non-ASCII Content-ID (a msg-id, in a 7-bit header)',
    send: { html: '<img src="cid:lögo@acme.example">', attachments: [{ filename: 'logo.png', content: PNG.toString('base64'), contentId: 'lögo@acme.example' }] },
    field: 'contentId',
  },
];

/** The parts of a client's reading the comparison looks at. */
interface Reading {
  from: { name: string; address: string }[] | null;
  to: { name: string; address: string }[] | null;
  cc: { name: string; address: string }[] | null;
  replyTo: { name: string; address: string }[] | null;
  subject: string | null;
  headers: Record<string, string[]>;
  text: string | null;
  html: string | null;
  /** Line breaks other than CRLF in a decoded text part (RFC 2046 §4.1.1 forbids them). */
  bareLineBreaks: { text: boolean; html: boolean };
  attachments: { filename: string | null; contentType: string; contentId: string | null; disposition: string | null; size: number; sha256: string }[];
  defects: string[];
}

const byName = (a: { filename: string | null }, b: { filename: string | null }) => (a.filename ?? '').localeCompare(b.filename ?? '');

/** What a client must read for `c`: what was submitted, with the equivalences above. */
function expectedReading(c: Case): Reading {
  const mailboxes = (list: Mailbox[] | undefined) => (list && list.length > 0 ? list.map((m) => ({ name: m.name, address: asciiAddress(m.address) })) : null);
  // An empty text beside HTML is a part of its own (empty), as any text is.
  const singlePart = (c.text === undefined || c.html === undefined) && (c.attachments ?? []).length === 0;
  // A single part's body ends with the message's final line break.
  const body = (value: string | undefined) => {
    if (value === undefined) return null;
    const canonical = lineBreaks(value);
    return singlePart && canonical !== '' && !canonical.endsWith('\n') ? `${canonical}\n` : canonical;
  };
  return {
    from: mailboxes([c.from ?? FROM]),
    to: mailboxes(c.to),
    cc: mailboxes(c.cc),
    replyTo: mailboxes(c.replyTo),
    subject: c.subject === '' ? null : c.subject,
    headers: Object.fromEntries(Object.entries(c.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value === '' ? [] : [value]])),
    text: body(c.text),
    html: body(c.html),
    bareLineBreaks: { text: false, html: false },
    attachments: (c.attachments ?? [])
      .map((a) => ({
        filename: a.filename,
        contentType: a.contentType ?? a.guessedType ?? 'application/octet-stream',
        contentId: a.contentId ? `<${a.contentId}>` : null,
        disposition: a.contentId ? 'inline' : 'attachment',
        size: a.content.length,
        sha256: sha256(a.content),
      }))
      .sort(byName),
    defects: [],
  };
}

const tokens = new TrackingTokens(deriveKey(TEST_SECRET_KEY, 'tracking'));
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const CLICK = new RegExp(`(["']?)${escapeRegExp(TRACKING_BASE_URL)}/c/([A-Za-z0-9_-]+)\\1`, 'g');
const PIXEL = new RegExp(
  `<img src="${escapeRegExp(TRACKING_BASE_URL)}/o/([A-Za-z0-9_-]+)" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0;margin:0;padding:0">`,
  'g',
);

/**
 * The HTML a tracked copy holds, with each tracking link put back to the link it stands for
 * (its token verified: this email, this recipient, that URL) and the one pixel taken out: what
 * remains must be the submitted HTML exactly. Throws on anything else tracking changed.
 */
function untracked(html: string, c: Case, emailId: string): string {
  const links = c.tracked ?? [];
  const recipients = new Set<string>();
  let i = 0;
  const restored = html.replace(CLICK, (whole, quote: string, token: string) => {
    const target = tokens.verify(token);
    const link = links[i++];
    if (!link || target?.kind !== 'click' || target.emailId !== emailId || target.url !== link.url) {
      throw new Error(`tracking link ${i} ${whole.slice(0, 80)}… stands for ${JSON.stringify(target)}, expected ${JSON.stringify(link)}`);
    }
    recipients.add(target.recipientId);
    // (The case's links are all quoted: tracking adds quotes to an unquoted one.)
    return `${quote}${link.written}${quote}`;
  });
  if (i !== links.length) throw new Error(`${i} tracking links found, expected ${links.length}`);
  const pixels = [...restored.matchAll(PIXEL)];
  if (pixels.length !== 1) throw new Error(`${pixels.length} tracking pixels found, expected 1`);
  const open = tokens.verify(pixels[0]![1]!);
  if (open?.kind !== 'open' || open.emailId !== emailId || (recipients.size > 0 && !recipients.has(open.recipientId)) || recipients.size > 1) {
    throw new Error(`the pixel and links of one copy stand for ${JSON.stringify({ open, recipients: [...recipients] })}`);
  }
  return restored.replace(PIXEL, '');
}

/** What the client read, with the allowed readings swapped in; and the allowances that no longer apply. */
function actualReading(view: ClientView, c: Case, emailId: string): { reading: Reading; staleAllowances: string[] } {
  const stale: string[] = [];
  const expected = expectedReading(c);
  const mailboxes = (field: 'from' | 'to' | 'cc' | 'replyTo') =>
    view[field]?.map((m: ClientMailbox, index) => {
      const allowance = c.allow?.[`${field}.${index}.name`];
      if (!allowance) return { name: m.name, address: m.address };
      // The entry is only for a reading Python gets wrong: once it reads right, drop the entry.
      if (m.name === expected[field]?.[index]?.name) stale.push(`${field}.${index}.name`);
      const other = allowance.reading === 'filenameParam' ? null : m.legacy[allowance.reading];
      return { name: other ?? `(no ${allowance.reading} reading)`, address: m.address };
    }) ?? null;
  const bare = (value: string | null) => value !== null && /\r(?!\n)|(?<!\r)\n/.test(value);
  const html = view.html !== null && c.tracked ? untracked(view.html, c, emailId) : view.html;
  const reading: Reading = {
    from: mailboxes('from'),
    to: mailboxes('to'),
    cc: mailboxes('cc'),
    replyTo: mailboxes('replyTo'),
    subject: view.subject,
    headers: Object.fromEntries(Object.keys(c.headers ?? {}).map((name) => [name.toLowerCase(), view.headers[name.toLowerCase()] ?? []])),
    text: view.text === null ? null : lineBreaks(view.text),
    html: html === null ? null : lineBreaks(html),
    bareLineBreaks: { text: bare(view.text), html: bare(view.html) },
    attachments: view.attachments
      .map(({ filename, filenameParam, contentType, contentId, disposition, size, sha256 }) => {
        const submitted = c.attachments?.find((a) => a.filename === filenameParam || a.filename === filename)?.filename;
        const allowance = submitted === undefined ? undefined : c.allow?.[`attachment:${submitted}`];
        if (allowance && filename === submitted) stale.push(`attachment:${submitted}`);
        return { filename: allowance ? filenameParam : filename, contentType, contentId, disposition, size, sha256 };
      })
      .sort(byName),
    defects: view.defects,
  };
  return { reading, staleAllowances: stale };
}

/** The API body for `c`, mailboxes written as an application would. */
function sendOf(c: Case): Record<string, unknown> {
  return {
    from: written(c.from ?? FROM),
    to: c.to.map(written),
    ...(c.cc ? { cc: c.cc.map(written) } : {}),
    ...(c.replyTo ? { replyTo: c.replyTo.map(written) } : {}),
    subject: c.subject,
    ...(c.text !== undefined ? { text: c.text } : {}),
    ...(c.html !== undefined ? { html: c.html } : {}),
    ...(c.headers ? { headers: c.headers } : {}),
    ...(c.attachments
      ? {
          attachments: c.attachments.map((a) => ({
            filename: a.filename,
            content: a.content.toString('base64'),
            ...(a.contentType ? { contentType: a.contentType } : {}),
            ...(a.contentId ? { contentId: a.contentId } : {}),
          })),
        }
      : {}),
    ...(c.tracked ? { trackOpens: true, trackClicks: true } : {}),
  };
}

describe('what a client reads is what was submitted (Python email, an independent parser)', () => {
  let sink: SmtpSink;
  let s: SendingStack;

  beforeAll(async () => {
    sink = await new SmtpSink({ starttls: false }).start();
    s = await startSendingStack('roundtrip', { OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sink.port}`, TRACKING_BASE_URL });
  });
  afterAll(async () => {
    await s?.close();
    await sink?.stop();
  });

  /** Sends through the gateway; every copy the sink received, one per recipient. */
  async function sendAndReceive(send: Record<string, unknown>): Promise<{ id: string; copies: SinkMessage[] }> {
    const { status, body } = await s.api.post('/emails', send);
    expect({ status, body: status === 200 ? {} : body }).toEqual({ status: 200, body: {} });
    const email = await waitForEmail(s.api, body.id, isFinished);
    expect(email.status).toBe('delivered');
    const copies = sink.messages.filter((m) => m.raw.includes(`<${body.id}@`));
    expect(copies).toHaveLength(email.recipients.length);
    return { id: body.id, copies };
  }

  test.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const { id, copies } = await sendAndReceive(sendOf(c));
    for (const copy of copies) {
      // As a receiver gets it without SMTPUTF8: 7-bit throughout (every part's header, every encoded body).
      expect({ firstEightBitByte: copy.raw.findIndex((byte) => byte >= 0x80) }).toEqual({ firstEightBitByte: -1 });
      const { reading, staleAllowances } = actualReading(await readEmail(copy.raw), c, id);
      expect(reading).toEqual(expectedReading(c));
      expect({ staleAllowances }).toEqual({ staleAllowances: [] });
    }
  });

  test.each(REFUSED.map((r) => [r.name, r] as const))('refused rather than sent otherwise: %s', async (_name, r) => {
    const before = sink.messages.length;
    const { status, body } = await s.api.post('/emails', { from: written(FROM), to: 'alice@example.com', subject: 'Refused', text: 'x', ...r.send });
    expect({ status, name: body.name }).toEqual({ status: 422, name: 'validation_error' });
    expect(body.message).toContain(r.field);
    expect(sink.messages.length).toBe(before);
  });
});
