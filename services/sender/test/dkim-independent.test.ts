import { createResolver } from '@mailroom/core';
import { dkimVerify } from 'mailauth';
import { simpleParser } from 'mailparser';
import { DnsServer } from '../../../test/support/dns-server';
import { publish } from '../../../test/support/published-records';
import { isFinished, startSendingStack, waitForEmail, type SendingStack } from '../../../test/support/sending';
import { SmtpSink, type SinkMessage } from '../../../test/support/smtp-sink';
import type { DkimpyVerdict, TxtRecord } from './support/dkimpy';
import { DkimpyServer } from './support/dkimpy-server';

/*
 * Our DKIM signatures as an independent implementation checks them. nodemailer signs and mailauth
 * (the same author's) verifies everywhere else in the suite, so a canonicalization mistake both
 * share would pass there and fail at Gmail or Microsoft. Here dkimpy (python3-dkim) verifies every
 * copy of a corpus of awkward messages sent through the real gateway and sender to an SMTP sink,
 * as a receiving MTA would get them, and must fail once a signed byte changes.
 */

const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const BINARY = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7) % 256)).toString('base64');
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
const FROM = 'Acme <hello@acme.example>';
const FORWARDED = 'From: someone@example.org\r\nSubject: inner\r\n\r\nline one\r\ncarriage\rreturn\nbare lf\n.leading dot\r\ntrailing  \r\n';

/** One message of the corpus: the send, and what else its received copies must show. */
interface Case {
  name: string;
  send: Record<string, unknown>;
  /** Recipients, so copies (one SMTP transaction each). Default 1. */
  copies?: number;
  /** The signing domain (d=), as DNS has it. Default acme.example. */
  domain?: string;
  check?: (copies: SinkMessage[]) => void | Promise<void>;
}

const headerSection = (raw: Buffer) => raw.subarray(0, raw.indexOf('\r\n\r\n') + 2).toString('latin1');
const header = (raw: Buffer, name: string) => headerSection(raw).match(new RegExp(`^${name}:.*(?:\\r\\n[ \\t].*)*`, 'im'))?.[0] ?? null;
const signedHeaders = (raw: Buffer) => (header(raw, 'DKIM-Signature') ?? '').replace(/\r\n[ \t]/g, '').match(/\bh=([^;]*)/)?.[1]?.toLowerCase().split(':') ?? [];

const CASES: Case[] = [
  {
    name: 'a long ASCII subject, folded over several lines',
    send: { subject: `Your order ${words(70)}`, text: 'Long subject' },
    check: ([m]) => expect(header(m!.raw, 'Subject')).toMatch(/\r\n[ \t]/),
  },
  {
    name: 'a 998-character subject with a 900-character unbroken run',
    send: { subject: `${'a'.repeat(900)} ${'b'.repeat(97)}`, text: 'Near the limit' },
  },
  {
    name: 'non-ASCII subject and display names (encoded words)',
    send: {
      from: 'Zoë Ünïcødé — 日本 <hello@acme.example>',
      to: 'José Müller <jose@example.com>',
      subject: `Grüße aus Köln — 日本語のテキスト 🎉 ${'ß'.repeat(80)} fin`,
      text: 'Encoded words',
    },
    check: ([m]) => expect(header(m!.raw, 'Subject')).toMatch(/=\?UTF-8\?/i),
  },
  {
    name: 'UTF-8 text and HTML bodies, mostly ASCII (quoted-printable)',
    send: { subject: 'UTF-8 QP', text: 'Ünïcödé ☃ — naïve café, 日本語.\nSecond line ✓\n', html: '<p>Ünïcödé ☃ — naïve café</p><p>日本語 ✓</p>' },
  },
  {
    name: 'UTF-8 text and HTML bodies, mostly non-ASCII (base64)',
    send: { subject: 'UTF-8 base64', text: '日本語のテキスト。'.repeat(60), html: `<p>${'日本語のテキスト。'.repeat(60)}</p>` },
  },
  {
    name: 'trailing spaces and tabs, runs of white space, blank and white-space-only lines at the end',
    send: {
      subject: 'White space',
      text: 'trailing spaces   \ntrailing tabs\t\t\n  indented   with \t runs  of  space\n\t\n \n\n\n\n',
      html: '<p>a  </p>   \n\t\n<p>b \t c</p>\t \n\n\n\n',
    },
  },
  {
    name: 'CRLF, bare LF and bare CR line breaks mixed',
    send: { subject: 'Line breaks', text: 'crlf\r\nlf\ncr\rcr-cr\r\rend\r\n\r', html: '<p>crlf</p>\r\n<p>lf</p>\n<p>cr</p>\r<p>end</p>\r' },
  },
  { name: 'an empty text body and no HTML', send: { subject: 'Empty text', text: '' } },
  { name: 'a white-space-only text body', send: { subject: 'Blank text', text: '  \n\t\n \n' } },
  { name: 'HTML only', send: { subject: 'HTML only', html: '<p>Only HTML</p>' } },
  { name: 'HTML with an empty text part', send: { subject: 'HTML and empty text', html: '<p>HTML</p>', text: '' } },
  {
    name: 'lines starting with "." and "From "',
    send: {
      subject: 'Dots and From',
      text: '.\n..\n.leading dot\n. dot space\nFrom the start of a line\nFrom: not a header\n>From quoted\n.',
      html: '<pre>\n.\n..\n.dot\nFrom here\n</pre>\n.',
    },
    check: async ([m]) => {
      expect((await simpleParser(m!.raw)).text).toContain('\n..\n.leading dot\n. dot space\nFrom the start of a line\n');
    },
  },
  {
    name: 'lines longer than 998 characters, with and without spaces',
    send: {
      subject: 'Long lines',
      text: `${'x'.repeat(5000)}\n${'word '.repeat(1200)}\nend`,
      html: `<p>${'y'.repeat(3000)}</p><p>${'long line '.repeat(400)}</p>`,
    },
  },
  {
    name: 'attachments (binary, text with odd line breaks, UTF-8 file name) and an inline image',
    send: {
      subject: 'Attachments',
      text: 'See attached',
      html: '<p>Logo: <img src="cid:logo@acme.example" alt=""></p>',
      attachments: [
        { filename: 'logo.png', content: PNG_1X1, contentType: 'image/png', contentId: 'logo@acme.example' },
        { filename: 'résumé – Zoë Ünïcødé with a rather long file name that must be folded.pdf', content: BINARY },
        { filename: 'notes.txt', content: b64('trailing  \r\nbare lf\nbare cr\rend \t\n\n\n'), contentType: 'text/plain' },
        { filename: 'data.csv', content: b64('a,b\n1,2\n.\nFrom x\n'), contentType: 'text/csv' },
      ],
    },
  },
  {
    name: 'a text attachment that is mostly ASCII, with a bare CR and bare LFs (quoted-printable)',
    send: {
      subject: 'Text attachment',
      text: 'See attached',
      attachments: [{ filename: 'log.txt', content: b64(`${'plain ASCII line\n'.repeat(50)}carriage\rreturn\nend`), contentType: 'text/plain' }],
    },
  },
  {
    // nodemailer writes message/* parts as they are given (no transfer encoding), so their line breaks reach SMTP unchanged.
    name: 'forwarded messages (message/rfc822 by type or by .eml name, message/global) with bare CRs, bare LFs and leading dots',
    send: {
      subject: 'Forwarded',
      text: 'Forwarded messages attached',
      attachments: [
        { filename: 'forwarded.eml', content: b64(FORWARDED) },
        { filename: 'inner', content: b64(FORWARDED), contentType: 'message/rfc822' },
        { filename: 'global.u8msg', content: b64(`${FORWARDED}ends in a CR\r`), contentType: 'message/global' },
      ],
    },
    check: ([m]) => expect(m!.raw.toString('latin1').match(/^Content-Type: message\/(rfc822|global)/gim)).toHaveLength(3),
  },
  {
    name: 'custom headers, signed list and threading headers, tags',
    send: {
      subject: 'Headers',
      text: 'Custom headers',
      headers: {
        'X-Entity-Ref-ID': 'ref-123',
        'list-unsubscribe': '<https://acme.example/unsubscribe?u=1&t=abc>, <mailto:unsubscribe@acme.example?subject=unsubscribe>',
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        'List-Id': 'Acme — Neuigkeiten <news.acme.example>',
        'In-Reply-To': '<thread-1@acme.example>',
        References: '<thread-0@acme.example> <thread-1@acme.example>',
        'X-Long': `${'value '.repeat(160)}end`,
        'X-Spaces': '  lots   of\t\tspace  ',
        'X-Unicode': 'Grüße aus Köln',
      },
      tags: [{ name: 'campaign', value: 'spring-2026' }],
    },
    check: ([m]) => expect(signedHeaders(m!.raw)).toEqual(expect.arrayContaining(['list-unsubscribe', 'list-unsubscribe-post', 'list-id', 'in-reply-to', 'references'])),
  },
  {
    name: 'control characters (tab, VT, FF, ESC, DEL) in the subject, a header and the body',
    send: { subject: 'Tab\there, vertical\u000btab and form\u000cfeed', headers: { 'X-Ctl': 'a\u000bb\u000cc' }, text: 'bel\u0007 vt\u000b ff\u000c esc\u001b del\u007f end' /* NUL is refused by the API */ },
  },
  {
    name: 'replyTo, cc and bcc with several addresses (no tracking: one signature shared)',
    send: {
      subject: 'Reply-To and Cc',
      to: ['alice@example.com', 'Bob Example <bob@example.com>'],
      cc: ['Çarol Ünïcødé <carol@example.com>'],
      bcc: 'dave@example.com',
      replyTo: ['Support <support@acme.example>', 'sales@acme.example'],
      html: '<p>Hello</p>',
      text: 'Hello',
    },
    copies: 4,
    check: (copies) => {
      expect(signedHeaders(copies[0]!.raw)).toEqual(expect.arrayContaining(['reply-to', 'cc', 'to']));
      expect(new Set(copies.map((m) => header(m.raw, 'DKIM-Signature'))).size).toBe(1);
      for (const m of copies) expect(headerSection(m.raw)).not.toMatch(/^Bcc:/im);
    },
  },
  {
    name: 'open and click tracking (HTML rewritten per recipient), several recipients',
    send: {
      subject: 'Tracked',
      to: ['alice@example.com', 'bob@example.com', 'carol@example.com'],
      trackOpens: true,
      trackClicks: true,
      html:
        '<html><body><p>Hi ☃</p><a href="https://acme.example/a?x=1&amp;y=2">double</a> ' +
        "<a href='https://acme.example/b'>single</a> <a href=https://acme.example/c>bare</a> " +
        `<a href="https://acme.example/long?q=${'z'.repeat(1500)}">long</a>\n\n</body></html>`,
      text: 'Tracked text',
    },
    copies: 3,
    check: (copies) => {
      for (const m of copies) expect(m.raw.toString('latin1')).toMatch(/\/o\//);
      expect(new Set(copies.map((m) => header(m.raw, 'DKIM-Signature'))).size).toBe(3);
    },
  },
  {
    name: 'open and click tracking on base64-encoded HTML',
    send: {
      subject: 'Tracked base64',
      to: ['alice@example.com', 'bob@example.com'],
      trackOpens: true,
      trackClicks: true,
      html: `<p>${'日本語のテキスト。'.repeat(100)}<a href="https://acme.example/ja">リンク</a></p>`,
    },
    copies: 2,
  },
  {
    name: 'tracking with attachments and an inline image (each message sent as three shared and per-recipient parts)',
    send: {
      subject: 'Tracked with attachments',
      to: ['alice@example.com', 'bob@example.com'],
      trackOpens: true,
      trackClicks: true,
      html: '<p>Logo <img src="cid:logo@acme.example"> and <a href="https://acme.example/x">a link</a>  </p>\t\n\n',
      text: 'trailing  \n\n',
      attachments: [
        { filename: 'logo.png', content: PNG_1X1, contentType: 'image/png', contentId: 'logo@acme.example' },
        { filename: 'forwarded.eml', content: b64(FORWARDED) },
        { filename: 'data.bin', content: BINARY },
      ],
    },
    copies: 2,
  },
  {
    name: 'an internationalized From domain (signed as its punycode)',
    send: { from: 'Bücherei <info@bücher.example>', subject: 'IDN sender', text: 'IDN From' },
    domain: 'xn--bcher-kva.example',
  },
  {
    name: 'an internationalized recipient domain',
    send: { subject: 'IDN recipient', to: 'Jürgen <info@bücher.example>', text: 'IDN' },
  },
];

describe('our DKIM signatures as dkimpy verifies them', () => {
  let dns: DnsServer;
  let sink: SmtpSink;
  let s: SendingStack;
  /** One Python for every verification of the file (dkim-verify.py's code, run per message). */
  let dkimpy: DkimpyServer;
  let dkimRecords: TxtRecord[] = [];
  /** Each verified domain's selector. */
  const selectors: Record<string, string> = {};
  /** Each case's first copy, for the tampering checks. */
  const received = new Map<string, SinkMessage>();

  beforeAll(async () => {
    dkimpy = new DkimpyServer();
    // Python starts while the stack does; a failure to start is reported below, where it is awaited.
    const dkimpyReady = dkimpy.start();
    dkimpyReady.catch(() => {});
    dns = await new DnsServer().start();
    sink = await new SmtpSink({ starttls: false }).start();
    s = await startSendingStack('dkimindep', {
      OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
      DNS_SERVERS: dns.address,
      DOMAIN_MX_HOST: 'mx.mailroom.test',
    });
    let zone = {};
    for (const name of ['acme.example', 'bücher.example']) {
      const { body: added } = await s.api.post('/domains', { name });
      zone = publish(added.records, zone);
      dns.setZone(zone);
      expect((await s.api.post(`/domains/${added.id}/verify`)).body.status).toBe('verified');
      dkimRecords = [...dkimRecords, ...added.records.filter((r: any) => r.record === 'dkim').map((r: any) => ({ name: r.name, value: r.value }))];
      selectors[added.name] = added.dkimSelector;
    }
    await dkimpyReady;
  });
  afterAll(async () => {
    await s?.close();
    await sink?.stop();
    await dns?.stop();
    await dkimpy?.stop();
  });

  /** Sends through the gateway and returns the copies the sink received, one per recipient. */
  async function sendAndReceive(send: Record<string, unknown>, copies: number): Promise<SinkMessage[]> {
    const before = sink.messages.length;
    const { status, body } = await s.api.post('/emails', { from: FROM, to: 'alice@example.com', ...send });
    expect({ status, unsigned: body.unsigned }).toEqual({ status: 200, unsigned: undefined });
    expect(await waitForEmail(s.api, body.id, isFinished)).toMatchObject({ status: 'delivered' });
    return (await sink.waitFor(before + copies)).slice(before);
  }

  /** mailauth's verdict, for comparison in a failure's diff. */
  async function mailauthResults(raw: Buffer): Promise<string[]> {
    const resolver = createResolver([dns.address], 1_000);
    const result = await dkimVerify(raw, { resolver: ((name: string, type: string) => resolver.resolve(name, type)) as never });
    return result.results.map((r) => r.status.result);
  }

  const verdict = (v: DkimpyVerdict) => ({ pass: v.pass, domain: v.domain, selector: v.selector, reason: v.reason });

  test.each(CASES.map((c) => [c.name, c] as const))('%s: every copy passes dkimpy', async (_name, c) => {
    const copies = await sendAndReceive(c.send, c.copies ?? 1);
    const judged = await Promise.all(
      copies.map(async (m) => ({
        to: m.recipients,
        dkimpy: (await dkimpy.verify(m.raw, dkimRecords)).map(verdict),
        mailauth: await mailauthResults(m.raw),
      })),
    );
    expect(judged).toEqual(
      copies.map((m) => {
        const domain = c.domain ?? 'acme.example';
        return { to: m.recipients, dkimpy: [{ pass: true, domain, selector: selectors[domain], reason: null }], mailauth: ['pass'] };
      }),
    );
    for (const m of copies) {
      // As a receiver gets it: the header section is 7-bit, and no line exceeds RFC 5322's 998 octets.
      expect(m.raw.subarray(0, m.raw.indexOf('\r\n\r\n')).findIndex((byte) => byte >= 0x80)).toBe(-1);
      expect(Math.max(...m.raw.toString('latin1').split('\r\n').map((line) => line.length))).toBeLessThanOrEqual(998);
    }
    await c.check?.(copies);
    received.set(c.name, copies[0]!);
  });

  describe('when a copy is altered after signing', () => {
    const bodyStart = (raw: Buffer) => raw.indexOf('\r\n\r\n') + 4;
    /** One body byte changed (an empty body gets one instead). */
    const tamperBody = (raw: Buffer) => {
      const copy = Buffer.from(raw);
      const at = copy.findIndex((c, i) => i >= bodyStart(raw) && /[A-Za-z0-9]/.test(String.fromCharCode(c)));
      if (at < 0) return Buffer.concat([raw, Buffer.from('x\r\n')]);
      copy[at] = copy[at] === 0x41 ? 0x42 : 0x41;
      return copy;
    };
    const inHeaders = (raw: Buffer, edit: (headers: string) => string) =>
      Buffer.concat([Buffer.from(edit(headerSection(raw)), 'latin1'), raw.subarray(bodyStart(raw) - 2)]);

    test.each(CASES.map((c) => [c.name] as const))('%s: dkimpy fails it once the body or a signed header changes, and passes what relays add', async (name) => {
      const raw = received.get(name);
      if (!raw) throw new Error('the case was not received (see its failure above)');
      const judge = async (altered: Buffer) => (await dkimpy.verify(altered, dkimRecords)).map((v) => ({ pass: v.pass, reason: v.reason }));
      const altered = {
        body: tamperBody(raw.raw),
        subject: inHeaders(raw.raw, (h) => h.replace(/^Subject:/im, 'Subject: Re:')),
        from: inHeaders(raw.raw, (h) => h.replace(/^From:[^\r]*/im, 'From: Mallory <mallory@example.net>')),
        // What a relay legitimately does: a trace header on top, an unsigned header added.
        relayed: inHeaders(raw.raw, (h) => `Received: from sender.mailroom.test by mx.receiver.test; Tue, 1 Jan 2030 00:00:00 +0000\r\n${h}X-Relayed: yes\r\n`),
      };
      const [body, subject, from, relayed] = await Promise.all([altered.body, altered.subject, altered.from, altered.relayed].map(judge));

      expect({ body, subject, from, relayed }).toEqual({
        body: [{ pass: false, reason: expect.stringMatching(/body hash mismatch/) }],
        subject: [{ pass: false, reason: expect.stringMatching(/valid: False/) }],
        from: [{ pass: false, reason: expect.stringMatching(/valid: False/) }],
        relayed: [{ pass: true, reason: null }],
      });
    });
  });
});
