import { createHash } from 'node:crypto';
import { createTransport } from 'nodemailer';
import { expectCode, RawSmtp, seedProject, startTestMx, storedRows, type TestMx } from './smtp-support';

// Small, so a message of exactly SIZE bytes is cheap to send.
const MAX_BYTES = 4_096;

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** What a client puts on the wire for `raw` (RFC 5321 §4.5.2): each line starting with a dot gets another, then CRLF.CRLF. */
function dotStuffed(raw: Buffer): Buffer {
  return Buffer.concat([Buffer.from(raw.toString('latin1').replace(/^\./gm, '..'), 'latin1'), Buffer.from('.\r\n')]);
}

describe('the MX speaking SMTP as the RFCs say, whatever the client', () => {
  let t: TestMx;

  beforeAll(async () => {
    t = await startTestMx({ label: 'smtpdialogue', env: { INBOUND_MAX_MESSAGE_BYTES: String(MAX_BYTES) } });
    await seedProject(t.pool, ['support@acme.test', '*@wild.acme.test']);
  });
  afterAll(() => t.close());
  beforeEach(() => t.pool.query({ text: 'DELETE FROM received_emails' }));

  test('when MAIL FROM or RCPT TO carries a parameter of no extension offered (DSN, AUTH, REQUIRETLS, unknown), then 555 5.5.4 (RFC 5321 §4.1.1.11), and SIZE, BODY and SMTPUTF8 are taken', async () => {
    const smtp = await RawSmtp.open(t.mx.port);
    expectCode(await smtp.reply(), 220);
    expectCode(await smtp.command('EHLO client.example.test'), 250);
    for (const parameters of ['FOO=bar', 'RET=HDRS', 'ENVID=abc', 'AUTH=<>', 'BODY=8BITMIME XTRA', 'REQUIRETLS', 'REQUIRETLS=yes']) {
      expect(await smtp.command(`MAIL FROM:<ann@example.test> ${parameters}`)).toMatch(/^555 5\.5\.4 Unsupported parameter: /);
    }
    // Nothing was begun: the next MAIL FROM is not a nested one; lower case is the same command.
    expect(await smtp.command('mail from:<ann@example.test> size=100 body=8bitmime smtputf8')).toMatch(/^250 2\.1\.0 /);
    expect(await smtp.command('RCPT TO:<support@acme.test> NOTIFY=NEVER')).toMatch(/^555 5\.5\.4 /);
    expect(await smtp.command('RCPT TO:<other@wild.acme.test> ORCPT=rfc822;other@wild.acme.test')).toMatch(/^555 5\.5\.4 /);
    expect(await smtp.command('RCPT TO:<support@acme.test>')).toMatch(/^250 2\.1\.5 /);
    expectCode(await smtp.command('DATA'), 354);
    expect(await smtp.command('Subject: parameters\r\n\r\nHello.\r\n.')).toMatch(/^250 2\.6\.0 /);
    smtp.end();
    const rows = await storedRows(t.pool);
    expect(rows.map((r) => r.rcpt_to)).toEqual([['support@acme.test']]);
  });

  test('when nodemailer asks for DSN notifications and sends UTF-8, then it sends only the parameters offered (no NOTIFY, RET) and its mail is taken', async () => {
    const transport = createTransport({ host: '127.0.0.1', port: t.mx.port, secure: false, ignoreTLS: true, name: 'client.example.test' });
    const raw = Buffer.from('From: Jürgen <jürgen@example.test>\r\nTo: support@acme.test\r\nSubject: Grüße\r\n\r\nGrüße.\r\n');
    const info = await transport.sendMail({
      envelope: { from: 'jürgen@example.test', to: ['support@acme.test'] },
      raw,
      dsn: { id: 'envelope-1', return: 'headers', notify: ['failure', 'delay'], recipient: 'support@acme.test' },
    });
    expect(info.accepted).toEqual(['support@acme.test']);
    const rows = await storedRows(t.pool);
    expect(rows.map((r) => [r.mail_from, r.raw.equals(raw)])).toEqual([['jürgen@example.test', true]]);
  });

  test('when lines of the message begin with dots, then it is stored without the dots the client added (RFC 5321 §4.5.2), byte for byte', async () => {
    const raw = Buffer.from('..Odd: header\r\nSubject: dots\r\n\r\n.\r\n..\r\n...x\r\n.\t\r\nbare\rCR and \x00 NUL and \xff\r\n. \r\nend\r\n', 'latin1');
    const smtp = await RawSmtp.open(t.mx.port);
    await smtp.startMessage('ann@example.test', ['support@acme.test']);
    smtp.write(dotStuffed(raw));
    expect(await smtp.reply()).toMatch(/^250 2\.6\.0 /);
    smtp.end();
    const [row] = await storedRows(t.pool);
    expect(sha256(row?.raw ?? Buffer.alloc(0))).toBe(sha256(raw));
  });

  test('when a message is exactly SIZE bytes, then it is stored; one byte more, then 552 5.3.4 after the final dot (RFC 1870)', async () => {
    const head = 'Subject: exact\r\n\r\n';
    const exact = Buffer.from(`${head}${'x'.repeat(MAX_BYTES - head.length - 2)}\r\n`);
    const over = Buffer.from(`${head}${'x'.repeat(MAX_BYTES - head.length - 1)}\r\n`);
    expect(exact.length).toBe(MAX_BYTES);
    const smtp = await RawSmtp.open(t.mx.port);
    await smtp.startMessage('ann@example.test', ['support@acme.test']);
    smtp.write(dotStuffed(exact));
    expect(await smtp.reply()).toMatch(/^250 2\.6\.0 /);
    expect(await smtp.command(`MAIL FROM:<ann@example.test> SIZE=${MAX_BYTES}`)).toMatch(/^250 /);
    expectCode(await smtp.command('RCPT TO:<support@acme.test>'), 250);
    expectCode(await smtp.command('DATA'), 354);
    smtp.write(dotStuffed(over));
    expect(await smtp.reply()).toMatch(/^552 5\.3\.4 /);
    smtp.end();
    const rows = await storedRows(t.pool);
    expect(rows.map((r) => r.raw.equals(exact))).toEqual([true]);
  });

  test('when one connection carries several transactions (RSET, a source route, a refused recipient pipelined, EHLO again), then each message keeps only its own recipients', async () => {
    const smtp = await RawSmtp.open(t.mx.port);
    expectCode(await smtp.reply(), 220);
    expectCode(await smtp.command('EHLO client.example.test'), 250);
    expectCode(await smtp.command('MAIL FROM:<ann@example.test>'), 250);
    expectCode(await smtp.command('RCPT TO:<a@wild.acme.test>'), 250);
    expectCode(await smtp.command('RSET'), 250);
    // After RSET there is no transaction: RCPT and DATA are out of sequence.
    expectCode(await smtp.command('RCPT TO:<b@wild.acme.test>'), 503);
    expectCode(await smtp.command('DATA'), 503);
    smtp.write('MAIL FROM:<>\r\nRCPT TO:<nobody@elsewhere.test>\r\nRCPT TO:<@relay.example.test,@other.example.test:c@wild.acme.test>\r\nDATA\r\n');
    expect([await smtp.reply(), await smtp.reply(), await smtp.reply(), await smtp.reply()].map((r) => r.slice(0, 3))).toEqual(['250', '550', '250', '354']);
    expectCode(await smtp.command('Subject: first\r\n\r\nOne.\r\n.'), 250);
    // EHLO resets the transaction as RSET does (RFC 5321 §4.1.4).
    expectCode(await smtp.command('MAIL FROM:<bob@example.test>'), 250);
    expectCode(await smtp.command('RCPT TO:<d@wild.acme.test>'), 250);
    expectCode(await smtp.command('EHLO again.example.test'), 250);
    expectCode(await smtp.command('DATA'), 503);
    expectCode(await smtp.command('MAIL FROM:<bob@example.test>'), 250);
    expectCode(await smtp.command('RCPT TO:<Support@ACME.test>'), 250);
    expectCode(await smtp.command('DATA'), 354);
    expectCode(await smtp.command('Subject: second\r\n\r\nTwo.\r\n.'), 250);
    expectCode(await smtp.command('QUIT'), 221);
    smtp.end();
    const rows = await storedRows(t.pool);
    expect(rows.map((r) => [r.mail_from, r.rcpt_to, r.helo])).toEqual([
      ['', ['c@wild.acme.test'], 'client.example.test'],
      ['bob@example.test', ['Support@ACME.test'], 'again.example.test'],
    ]);
  });
});
