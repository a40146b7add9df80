import { join } from 'node:path';
import { PrivatePostfix } from '../../../test/support/postfix';
import { runPythonJson } from '../../../test/support/python-script';
import { RawSmtp, seedProject, startTestMx, storedRows, type TestMx } from './smtp-support';

/**
 * Internationalized addresses (RFC 6531, SMTPUTF8) at the MX, with independent peers: Python's
 * smtplib delivers with SMTPUTF8 to U-label, A-label and NFD-written recipients, which must find
 * the same routes (`*@bücher.example` is stored `*@xn--bcher-kva.example`; `jürgen@acme.test` in
 * NFC); and Postfix with `strict_smtputf8 = yes` answers the same command lines as the MX when a
 * client writes a UTF-8 address without SMTPUTF8 (RFC 6531 §3.4: 553 5.6.7).
 */

const SMTPLIB = join(__dirname, 'support', 'eai-smtplib.py');
const PYTHON = process.env.SMTPLIB_PYTHON ?? '/usr/bin/python3';

interface SmtplibResult {
  refused: Record<string, [number, string]>;
  error: string | null;
  noop: number;
}

function smtplibSend(port: number, from: string, to: string[], message: string, options: string[]): Promise<SmtplibResult> {
  return runPythonJson<SmtplibResult>({
    python: PYTHON,
    script: SMTPLIB,
    args: [String(port)],
    input: JSON.stringify({ from, to, message: Buffer.from(message).toString('base64'), options }),
    missing: { message: `no Python 3 at ${PYTHON}: install Debian's python3, or set SMTPLIB_PYTHON` },
  });
}

const MESSAGE = [
  'From: Zoë <zoë@exämple.org>',
  'To: Jürgen <jürgen@acme.test>, x@bücher.example',
  'Subject: Grüße ✓',
  'Message-ID: <eai-smtp@exämple.org>',
  'MIME-Version: 1.0',
  'Content-Type: text/plain; charset=utf-8',
  'Content-Transfer-Encoding: 8bit',
  '',
  'Hallo ✓',
  '',
].join('\r\n');

let t: TestMx;
let routes: Record<string, string>;

beforeAll(async () => {
  t = await startTestMx({ label: 'eaismtp' });
  routes = (await seedProject(t.pool, ['*@xn--bcher-kva.example', 'jürgen@acme.test'])).routes;
});
afterAll(() => t.close());

describe('smtplib delivers internationalized mail with SMTPUTF8', () => {
  test('when the recipients are a U-label, an A-label and an NFD local part, then each finds its route and the message is stored once', async () => {
    const nfd = 'ju\u0308rgen@acme.test';
    const result = await smtplibSend(t.mx.port, 'zoë@exämple.org', ['x@bücher.example', 'y@xn--bcher-kva.example', nfd, 'nobody@acme.test'], MESSAGE, ['SMTPUTF8', 'BODY=8BITMIME']);
    expect(result.error).toBeNull();
    expect(result.refused).toEqual({ 'nobody@acme.test': [550, expect.stringMatching(/^5\.1\.1 /)] });
    const rows = await storedRows(t.pool);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.route_ids).toEqual([routes['*@xn--bcher-kva.example'], routes['jürgen@acme.test']]);
    expect(rows[0]?.mail_from).toBe('zoë@exämple.org');
    // smtp-server writes an A-label domain as its U-label; the local part stays as the client wrote it.
    expect(rows[0]?.rcpt_to).toEqual(['x@bücher.example', 'y@bücher.example', nfd]);
    expect(rows[0]?.raw.toString('utf8')).toBe(MESSAGE);
  });
});

describe('a UTF-8 address without SMTPUTF8, at the MX and at Postfix with strict_smtputf8', () => {
  let postfix: PrivatePostfix;
  beforeAll(async () => {
    postfix = await PrivatePostfix.start({
      hostname: 'mx.postfix.test',
      mailboxDomain: 'acme.test',
      mailboxes: ['support'],
      settings: { mynetworks: '192.0.2.254/32', smtpd_reject_unlisted_recipient: 'no', smtputf8_enable: 'yes', strict_smtputf8: 'yes' },
    });
  }, 30_000);
  afterAll(() => postfix?.stop());

  /** The replies of one server to the lines, after EHLO. */
  async function replies(port: number, lines: string[]): Promise<string[]> {
    const smtp = await RawSmtp.open(port);
    await smtp.reply();
    await smtp.command('EHLO client.example.test');
    const out: string[] = [];
    for (const line of lines) out.push(await smtp.command(line));
    smtp.end();
    return out;
  }

  const SEQUENCES: [string, string[]][] = [
    ['a UTF-8 reverse-path', ['MAIL FROM:<jürgen@example.test>']],
    ['a UTF-8 forward-path after an ASCII MAIL FROM', ['MAIL FROM:<ann@example.test>', 'RCPT TO:<jürgen@acme.test>']],
    ['an A-label forward-path (ASCII, no SMTPUTF8 needed)', ['MAIL FROM:<ann@example.test>', 'RCPT TO:<support@xn--bcher-kva.example>']],
    ['a UTF-8 reverse-path with SMTPUTF8', ['MAIL FROM:<jürgen@example.test> SMTPUTF8']],
  ];

  test.each(SEQUENCES)('when a client sends %s, then the MX answers as Postfix does, code for code', async (_name, lines) => {
    const ours = (await replies(t.mx.port, lines)).map((r) => r.slice(0, 9));
    const theirs = (await replies(postfix.port, lines)).map((r) => r.slice(0, 9));
    // Postfix relays for nobody here: its 554 5.7.1 for a domain it does not serve is no answer about SMTPUTF8.
    expect(ours.map((r, i) => (theirs[i]?.startsWith('554 5.7.1') ? 'relay' : r))).toEqual(theirs.map((r) => (r.startsWith('554 5.7.1') ? 'relay' : r)));
  });

  test('when a UTF-8 address comes without SMTPUTF8, then 553 5.6.7 (RFC 6531 §3.4) and nothing is stored', async () => {
    const before = (await storedRows(t.pool)).length;
    const [mail, , rcpt] = await replies(t.mx.port, ['MAIL FROM:<jürgen@example.test>', 'MAIL FROM:<ann@example.test>', 'RCPT TO:<jürgen@acme.test>', 'DATA']);
    expect(mail).toMatch(/^553 5\.6\.7 /);
    expect(rcpt).toMatch(/^553 5\.6\.7 /);
    expect(await storedRows(t.pool)).toHaveLength(before);
  });
});
