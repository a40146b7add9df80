import { expectCode, RawSmtp, seedProject, startTestMx, storedRows, swaks, type TestMx } from './smtp-support';

/** A connection past the greeting and EHLO. */
async function session(port: number): Promise<RawSmtp> {
  const smtp = await RawSmtp.open(port);
  expectCode(await smtp.reply(), 220);
  expectCode(await smtp.command('EHLO client.example.test'), 250);
  return smtp;
}

/** Sends raw bytes as one command line and returns the reply. */
async function commandBytes(smtp: RawSmtp, line: Buffer): Promise<string> {
  smtp.write(Buffer.concat([line, Buffer.from('\r\n')]));
  return smtp.reply();
}

describe('the MX reading commands and addresses as RFC 5321 writes them', () => {
  let t: TestMx;

  beforeAll(async () => {
    t = await startTestMx({ label: 'smtprfc5321', env: { SMTP_HOSTNAME: 'MX.Acme.Test.' } });
    await seedProject(t.pool, ['support@acme.test', '*@wild.acme.test']);
  });
  afterAll(() => t.close());
  beforeEach(() => t.pool.query({ text: 'DELETE FROM received_emails' }));

  test('when SMTP_HOSTNAME is set, then the greeting and the EHLO reply name it (not the machine\'s or the pod\'s name)', async () => {
    const smtp = await RawSmtp.open(t.mx.port);
    expect(await smtp.reply()).toMatch(/^220 mx\.acme\.test ESMTP/);
    expect(await smtp.command('EHLO client.example.test')).toMatch(/^250[- ]mx\.acme\.test /);
    smtp.end();
  });

  test('when swaks sends from and to a quoted local part with a space (RFC 5321 §4.1.2 Quoted-string), then both are taken and stored as written', async () => {
    const { code, output } = await swaks([
      '--server', `127.0.0.1:${t.mx.port}`, '--helo', 'swaks.example.test', '--from', '"john doe"@example.test', '--to', '"john doe"@wild.acme.test',
      '--header', 'Subject: quoted',
    ]);
    expect(output).toContain('<-  250 2.1.5');
    expect(code).toBe(0);
    const rows = await storedRows(t.pool);
    expect(rows.map((r) => [r.mail_from, r.rcpt_to])).toEqual([['"john doe"@example.test', ['"john doe"@wild.acme.test']]]);
  });

  test('when a quoted local part holds an @, an escaped quote or follows a source route, then it is taken; an unclosed quote or a control character in one is 501 5.1.3', async () => {
    const smtp = await session(t.mx.port);
    expect(await smtp.command('MAIL FROM:<"a@b"@example.test>')).toMatch(/^250 2\.1\.0 /);
    expect(await smtp.command('RCPT TO:<"a@b"@wild.acme.test>')).toMatch(/^250 2\.1\.5 /);
    // Appendix C: the route is accepted and ignored.
    expect(await smtp.command('RCPT TO:<@relay.example.test,@other.example.test:"x y"@wild.acme.test>')).toMatch(/^250 2\.1\.5 /);
    expect(await smtp.command('RCPT TO:<"a\\"b c"@wild.acme.test>')).toMatch(/^250 2\.1\.5 /);
    expect(await smtp.command('RCPT TO:<"open@wild.acme.test>')).toMatch(/^501 5\.1\.3 /);
    expect(await smtp.command('RCPT TO:<"tab\there"@wild.acme.test>')).toMatch(/^501 5\.1\.3 /);
    // Parsed, then refused as any unrouted address is: never an open relay.
    expect(await smtp.command('RCPT TO:<"john doe"@elsewhere.test>')).toMatch(/^550 5\.1\.1 /);
    expectCode(await smtp.command('DATA'), 354);
    expect(await smtp.command('Subject: quoted\r\n\r\nHello.\r\n.')).toMatch(/^250 2\.6\.0 /);
    smtp.end();
    const rows = await storedRows(t.pool);
    expect(rows.map((r) => [r.mail_from, r.rcpt_to])).toEqual([['"a@b"@example.test', ['"a@b"@wild.acme.test', '"x y"@wild.acme.test', '"a\\"b c"@wild.acme.test']]]);
  });

  test('when an address is 254 octets (RFC 5321 §4.5.3.1.3: a 256-octet path with its brackets), then it is taken in MAIL and RCPT and stored whole; at 255 it is 501 5.1.3', async () => {
    const domain = '@wild.acme.test';
    const longest = (local: string) => `${local}${'a'.repeat(254 - domain.length - local.length)}${domain}`;
    const smtp = await session(t.mx.port);
    expect(await smtp.command(`MAIL FROM:<${longest('From.')}>`)).toMatch(/^250 2\.1\.0 /);
    expect(await smtp.command(`RCPT TO:<${longest('rcpt.x.')}>`)).toMatch(/^250 2\.1\.5 /);
    expect(await smtp.command(`RCPT TO:<${longest('B')}>`)).toMatch(/^250 2\.1\.5 /);
    expect(await smtp.command(`RCPT TO:<a${longest('c')}>`)).toMatch(/^501 5\.1\.3 /);
    // The library's other checks still hold at that length.
    expect(await smtp.command(`RCPT TO:<.${longest('d').slice(1)}>`)).toMatch(/^501 5\.1\.3 /);
    expectCode(await smtp.command('DATA'), 354);
    expect(await smtp.command('Subject: long\r\n\r\nHello.\r\n.')).toMatch(/^250 2\.6\.0 /);
    smtp.end();
    const rows = await storedRows(t.pool);
    expect(rows.map((r) => [r.mail_from, r.rcpt_to])).toEqual([[longest('From.'), [longest('rcpt.x.'), longest('B')]]]);
    expect(Buffer.byteLength(rows[0]?.mail_from ?? '')).toBe(254);
  });

  test('when a client uses a command RFC 5321 defines that the MX does not implement (EXPN, TURN, SEND, SOML, SAML, ETRN, ATRN), then 502 5.5.1 (§4.2.4); an unknown command or a sendmail joke is 500 5.5.2', async () => {
    const smtp = await session(t.mx.port);
    for (const command of ['EXPN staff', 'expn staff', 'TURN', 'SEND FROM:<ann@example.test>', 'SOML FROM:<ann@example.test>', 'SAML FROM:<ann@example.test>', 'ETRN acme.test', 'ATRN acme.test']) {
      expect([command, await smtp.command(command)]).toEqual([command, expect.stringMatching(/^502 5\.5\.1 [A-Z]+ not implemented\.$/)]);
    }
    for (const command of ['XYZZY', 'WIZ secret', 'SHELL', 'KILL']) {
      expect([command, await smtp.command(command)]).toEqual([command, expect.stringMatching(/^500 5\.5\.2 /)]);
    }
    // The connection is still usable for mail.
    expect(await smtp.command('MAIL FROM:<ann@example.test>')).toMatch(/^250 2\.1\.0 /);
    smtp.end();
  });

  test('when a client sends BDAT though CHUNKING is not offered, then 502 5.5.1 and the connection closes: the chunk after it is never read as commands (RFC 3030)', async () => {
    const smtp = await session(t.mx.port);
    expectCode(await smtp.command('MAIL FROM:<ann@example.test>'), 250);
    expectCode(await smtp.command('RCPT TO:<support@acme.test>'), 250);
    const chunk = 'MAIL FROM:<evil@example.test>\r\nRCPT TO:<support@acme.test>\r\nDATA\r\nSubject: smuggled\r\n\r\nHi.\r\n.\r\n';
    smtp.write(`BDAT ${Buffer.byteLength(chunk)} LAST\r\n${chunk}`);
    expect(await smtp.reply()).toMatch(/^502 5\.5\.1 BDAT not implemented/);
    expect(await smtp.reply()).toBe('');
    expect(await smtp.closedByServer()).toBe(true);
    expect(await storedRows(t.pool)).toHaveLength(0);
  });

  test('when DATA or RSET carries an argument, then 501 5.5.4 (RFC 5321 §4.1.1.4, §4.1.1.5): DATA does not begin and RSET does not reset; trailing white space after a command is tolerated (§4.1.1)', async () => {
    const smtp = await session(t.mx.port);
    expect(await smtp.command('MAIL FROM:<ann@example.test>')).toMatch(/^250 /);
    expect(await smtp.command('RSET now')).toMatch(/^501 5\.5\.4 /);
    // The transaction is still open.
    expect(await smtp.command('RCPT TO:<support@acme.test>')).toMatch(/^250 /);
    expect(await smtp.command('DATA now')).toMatch(/^501 5\.5\.4 /);
    // Not in DATA: the next line is a command.
    expect(await smtp.command('NOOP\t')).toMatch(/^250 2\.0\.0 /);
    expect(await smtp.command('DATA \t')).toMatch(/^354 /);
    expect(await smtp.command('Subject: trailing\r\n\r\nHello.\r\n.')).toMatch(/^250 2\.6\.0 /);
    expect(await smtp.command('RSET\t')).toMatch(/^250 2\.0\.0 /);
    expect(await smtp.command('QUIT\t')).toMatch(/^221 /);
    smtp.end();
    expect(await storedRows(t.pool)).toHaveLength(1);
  });

  test('when MAIL FROM or RCPT TO holds bytes that are not UTF-8, then 501 and nothing is stored; a 555 names a non-ASCII parameter in ASCII only', async () => {
    const smtp = await session(t.mx.port);
    expect(await commandBytes(smtp, Buffer.from('MAIL FROM:<ann\xe9@example.test> SMTPUTF8', 'latin1'))).toMatch(/^501 5\.1\.7 /);
    expect(await smtp.command('MAIL FROM:<ann@example.test>')).toMatch(/^250 2\.1\.0 /);
    expect(await commandBytes(smtp, Buffer.from('RCPT TO:<supp\xffort@acme.test>', 'latin1'))).toMatch(/^501 5\.1\.3 /);
    const reply = await commandBytes(smtp, Buffer.from('RCPT TO:<support@acme.test> FÖÖ=1', 'utf8'));
    expect(reply).toMatch(/^555 5\.5\.4 Unsupported parameter: F\?\?$/);
    expect(await smtp.command('DATA')).toMatch(/^503 5\.5\.1 /);
    smtp.end();
    expect(await storedRows(t.pool)).toHaveLength(0);
  });

  test('when a checker walks the command set, then each reply has the code RFC 5321 §4.3.2 allows and an enhanced code of its class (RFC 3463), the greeting and HELO/EHLO replies none, and VRFY’s 252 claims no valid address (2.0.0, §7.3)', async () => {
    const smtp = await RawSmtp.open(t.mx.port);
    const replies: [string, string][] = [['(greeting)', await smtp.reply()]];
    const say = async (command: string) => {
      const reply = await smtp.command(command);
      replies.push([command, reply]);
      return reply;
    };
    const expected: [string, RegExp][] = [
      ['NOOP', /^250 2\.0\.0 /],
      ['MAIL FROM:<ann@example.test>', /^503 5\.5\.1 /],
      ['EHLO', /^501 /],
      ['HELO [192.0.2.1]', /^250 /],
      ['EHLO [IPv6:2001:db8::1]', /^250-/],
      ['RCPT TO:<support@acme.test>', /^503 5\.5\.1 /],
      ['DATA', /^503 5\.5\.1 /],
      ['VRFY support', /^252 2\.0\.0 /],
      ['VRFY', /^501 5\.5\.4 /],
      ['HELP', /^214 2\.0\.0 /],
      ['MAIL FROM:<> SIZE=999999999999', /^552 5\.3\.4 /],
      ['MAIL FROM:<> BODY=BINARYMIME', /^501 5\.5\.4 /],
      ['MAIL FROM:<ann@example.test', /^501 5\.1\.7 /],
      ['mail from:<> body=7bit', /^250 2\.1\.0 /],
      ['MAIL FROM:<bob@example.test>', /^503 5\.5\.1 /],
      ['DATA', /^503 5\.5\.1 /],
      ['RCPT TO:<postmaster>', /^250 2\.1\.5 /],
      ['RCPT TO:<nobody@elsewhere.test>', /^550 5\.1\.1 /],
      ['RCPT TO:<support@>', /^501 5\.1\.3 /],
      ['RSET', /^250 2\.0\.0 /],
      ['QUIT', /^221 2\.0\.0 /],
    ];
    for (const [command, reply] of expected) expect([command, await say(command)]).toEqual([command, expect.stringMatching(reply)]);
    expect(replies[0]?.[1]).toMatch(/^220 \S+ ESMTP /);
    for (const [command, reply] of replies) {
      const lines = reply.split(/\r?\n/);
      const enhanced = lines.map((line) => /^\d{3}[ -](\d)\.\d{1,3}\.\d{1,3} /.exec(line)?.[1]);
      if (command === '(greeting)' || /^(HELO|EHLO)\b/.test(command)) expect([command, enhanced]).toEqual([command, lines.map(() => undefined)]);
      else expect([command, enhanced]).toEqual([command, lines.map((line) => line[0])]);
    }
    smtp.end();
  });
});
