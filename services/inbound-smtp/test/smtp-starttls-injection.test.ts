import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { expectCode, message, RawSmtp, seedProject, startTestMx, storedRows, type TestMx } from './smtp-support';
import { selfSignedCertificate } from '../../../test/support/certificate';

/**
 * STARTTLS probes of the MX (the "NO STARTTLS" class, Poddebniak et al., USENIX Security 2021):
 * plaintext commands injected behind STARTTLS (CVE-2011-0411), the session state RFC 3207 §4.2
 * says to forget, STARTTLS where it does not belong, and handshakes that never complete.
 */

// Generous bounds on waits only (a loaded 2-core machine); no assertion is about how long anything took.
const CUT_DEADLINE_MS = 20_000;

/** A whole transaction, as an attacker on the path would append it to the client's STARTTLS. */
const INJECTED_TRANSACTION = `EHLO evil.test\r\nMAIL FROM:<injected@evil.test>\r\nRCPT TO:<support@acme.test>\r\nDATA\r\n${message('Injected').toString()}.\r\n`;

describe('STARTTLS on the MX', () => {
  let database: TestDatabase;
  let dir: string;
  let mx: TestMx;
  // A second MX that cuts idle sessions after 1 s and admits one connection per IP.
  let strict: TestMx;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mx-starttls-'));
    const { certFile, keyFile } = selfSignedCertificate(dir, 'mx.mailroom.test');
    const tlsEnv = { SMTP_TLS_CERT_FILE: certFile, SMTP_TLS_KEY_FILE: keyFile };
    database = await createTestDatabase('smtpstarttls');
    mx = await startTestMx({ database, env: tlsEnv });
    strict = await startTestMx({ database, env: { ...tlsEnv, SMTP_IDLE_TIMEOUT_SECONDS: '1', SMTP_MAX_CONNECTIONS_PER_IP: '1' } });
    await seedProject(mx.pool, ['support@acme.test']);
  });
  afterAll(async () => {
    await mx?.close();
    await strict?.close();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => mx.pool.query({ text: 'DELETE FROM received_emails' }));

  /** Greeting and EHLO in plaintext, then `STARTTLS` followed by `after` in the same write; returns the client after the 220. */
  async function startTlsWith(after: string, port = mx.mx.port): Promise<RawSmtp> {
    const smtp = await RawSmtp.open(port);
    expectCode(await smtp.reply(), 220);
    expectCode(await smtp.command('EHLO client.example.test'), 250);
    smtp.write(`STARTTLS\r\n${after}`);
    expect(await smtp.reply()).toMatch(/^220 /);
    return smtp;
  }

  /** After the handshake: the session knows nothing (503 to MAIL before EHLO), then a real transaction is stored. */
  async function expectFreshSessionThatDelivers(smtp: RawSmtp, subject: string): Promise<void> {
    // Any injected command that ran inside TLS would have its reply read here instead.
    expect(await smtp.command('MAIL FROM:<ann@example.test>')).toMatch(/^503 /);
    expect(await smtp.command('EHLO client.example.test')).toMatch(/^250[ -]/);
    expectCode(await smtp.command('MAIL FROM:<ann@example.test>'), 250);
    expectCode(await smtp.command('RCPT TO:<support@acme.test>'), 250);
    expectCode(await smtp.command('DATA'), 354);
    smtp.write(message(subject));
    expectCode(await smtp.command('.'), 250);
    expect(await smtp.command('QUIT')).toMatch(/^221 /);
    // Nothing after the 221: no reply was owed to anything but our own commands.
    expect(await smtp.reply()).toBe('');
  }

  describe('plaintext injected after STARTTLS in the same segment (CVE-2011-0411, RFC 3207 §4.2)', () => {
    test.each([
      ['RSET', 'RSET\r\n'],
      ['MAIL FROM', 'MAIL FROM:<x@evil.test>\r\n'],
      ['a whole transaction with its message', INJECTED_TRANSACTION],
      // smtp-server's parser yields to the event loop every hundred pipelined lines.
      ['300 NOOPs and then MAIL FROM', `${'NOOP\r\n'.repeat(300)}MAIL FROM:<x@evil.test>\r\n`],
      ['half a command line', 'MAIL FROM:<x@ev'],
    ])('when %s follows STARTTLS, then none of it runs: no reply before or after the handshake, and nothing is stored', async (_what, injected) => {
      const smtp = await startTlsWith(injected);
      // Nothing was answered in plaintext after the 220.
      expect(await smtp.startTls()).toBe('');
      await expectFreshSessionThatDelivers(smtp, 'After injection');
      expect((await storedRows(mx.pool)).map((r) => r.mail_from)).toEqual(['ann@example.test']);
    });
  });

  test('when STARTTLS completes, then the plaintext EHLO, MAIL and RCPT are forgotten (RFC 3207 §4.2) and a second EHLO offers no STARTTLS', async () => {
    const smtp = await RawSmtp.open(mx.mx.port);
    expectCode(await smtp.reply(), 220);
    expect(await smtp.command('EHLO client.example.test')).toMatch(/^250[- ]STARTTLS$/m);
    expect(await smtp.command('STARTTLS')).toMatch(/^220 /);
    expect(await smtp.startTls()).toBe('');
    expect(await smtp.command('MAIL FROM:<ann@example.test>')).toMatch(/^503 /);
    const ehlo = await smtp.command('EHLO client.example.test');
    expectCode(ehlo, 250);
    expect(ehlo).not.toMatch(/STARTTLS/);
    smtp.end();
  });

  test('when STARTTLS comes in the middle of a transaction (after MAIL and RCPT), then after the handshake the envelope is gone: RCPT and DATA are 503', async () => {
    const smtp = await RawSmtp.open(mx.mx.port);
    expectCode(await smtp.reply(), 220);
    expectCode(await smtp.command('EHLO client.example.test'), 250);
    expectCode(await smtp.command('MAIL FROM:<plain@example.test>'), 250);
    expectCode(await smtp.command('RCPT TO:<support@acme.test>'), 250);
    expect(await smtp.command('STARTTLS')).toMatch(/^220 /);
    expect(await smtp.startTls()).toBe('');
    expectCode(await smtp.command('EHLO client.example.test'), 250);
    // Neither the sender nor the recipient given in plaintext carries over into TLS.
    expect(await smtp.command('RCPT TO:<support@acme.test>')).toMatch(/^503 /);
    expect(await smtp.command('DATA')).toMatch(/^503 /);
    expectCode(await smtp.command('MAIL FROM:<ann@example.test>'), 250);
    expectCode(await smtp.command('RCPT TO:<support@acme.test>'), 250);
    expectCode(await smtp.command('DATA'), 354);
    smtp.write(message('Mid-transaction STARTTLS'));
    expectCode(await smtp.command('.'), 250);
    smtp.end();
    expect((await storedRows(mx.pool)).map((r) => [r.mail_from, r.rcpt_to])).toEqual([['ann@example.test', ['support@acme.test']]]);
  });

  test('when a client sends STARTTLS again inside TLS, then it is refused with 503 and the session goes on in TLS', async () => {
    const smtp = await startTlsWith('');
    expect(await smtp.startTls()).toBe('');
    expectCode(await smtp.command('EHLO client.example.test'), 250);
    expect(await smtp.command('STARTTLS')).toMatch(/^503 5\.5\.1 /);
    // Still a working TLS session: nothing was torn down or restarted.
    expectCode(await smtp.command('MAIL FROM:<ann@example.test>'), 250);
    expectCode(await smtp.command('RCPT TO:<support@acme.test>'), 250);
    expectCode(await smtp.command('DATA'), 354);
    smtp.write(message('Second STARTTLS'));
    expectCode(await smtp.command('.'), 250);
    smtp.end();
    expect(await storedRows(mx.pool)).toHaveLength(1);
  });

  test('when STARTTLS has a parameter, then it is 501 and the session stays in plaintext', async () => {
    const smtp = await RawSmtp.open(mx.mx.port);
    expectCode(await smtp.reply(), 220);
    expectCode(await smtp.command('EHLO client.example.test'), 250);
    expect(await smtp.command('STARTTLS now')).toMatch(/^501 /);
    expectCode(await smtp.command('NOOP'), 250);
    smtp.end();
  });

  test('when OpenSSL\'s own client upgrades with -starttls smtp, then the handshake completes and EHLO inside TLS offers no STARTTLS', async () => {
    // s_client sends EHLO and STARTTLS itself, then our lines inside TLS; -ign_eof waits for the 221.
    const output = await new Promise<string>((resolve, reject) => {
      const child = execFile(
        '/usr/bin/openssl',
        ['s_client', '-connect', `127.0.0.1:${mx.mx.port}`, '-starttls', 'smtp', '-crlf', '-quiet', '-ign_eof'],
        { timeout: CUT_DEADLINE_MS },
        (err, stdout) => (err && !stdout ? reject(err) : resolve(stdout)),
      );
      child.stdin?.end('EHLO client.example.test\nQUIT\n');
    });
    expect(output).toMatch(/^250[ -]8BITMIME$/m);
    expect(output).not.toMatch(/STARTTLS/);
    expect(output).toMatch(/^221 /m);
  });

  describe('a TLS handshake that never completes', () => {
    test.each([
      ['sends nothing after the 220', ''],
      ['sends garbage that is not a ClientHello', 'GET / HTTP/1.1\r\nHost: mx\r\n\r\n'],
      // A TLS record header announcing a 512-byte handshake record, and then nothing.
      ['sends the first bytes of a ClientHello and stops', Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01]).toString('latin1')],
    ])('when a client %s, then the MX cuts it, frees its per-IP slot and greets the next client', async (_what, bytes) => {
      const stalled = await startTlsWith('', strict.mx.port);
      // After the 220, so that the bytes reach the TLS layer rather than the retired plaintext parser.
      if (bytes) stalled.write(Buffer.from(bytes, 'latin1'));
      expect(await stalled.closedByServer(CUT_DEADLINE_MS)).toBe(true);
      // This IP may hold one connection (SMTP_MAX_CONNECTIONS_PER_IP=1): the cut one no longer counts.
      const next = await RawSmtp.open(strict.mx.port);
      expect(await next.reply()).toMatch(/^220 /);
      expect(await next.command('EHLO client.example.test')).toMatch(/^250[ -]/);
      expect(await next.command('QUIT')).toMatch(/^221 /);
      next.end();
    });

    test('when a client trickles a ClientHello a byte at a time, each byte well inside the idle timeout, then the MX still cuts the handshake', async () => {
      const stalled = await startTlsWith('', strict.mx.port);
      // A record header announcing a 512-byte handshake record; its body then comes one byte per
      // 300 ms (the idle timeout is 1 s), which would take 150 s to finish.
      stalled.write(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00]));
      const trickle = setInterval(() => stalled.write(Buffer.from([0x01])), 300);
      try {
        expect(await stalled.closedByServer(CUT_DEADLINE_MS)).toBe(true);
      } finally {
        clearInterval(trickle);
      }
      const next = await RawSmtp.open(strict.mx.port);
      expect(await next.reply()).toMatch(/^220 /);
      next.end();
    });
  });
});
