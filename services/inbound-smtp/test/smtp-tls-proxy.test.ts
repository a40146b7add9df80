import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';
import { Command, IPv4Address, IPv4ProxyAddress, IPv6Address, IPv6ProxyAddress, TransportProtocol, V2ProxyProtocol } from 'proxy-protocol-js';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { startHaproxy } from '../../../test/support/haproxy';
import { MAX_V2_HEADER_BYTES } from '../src/smtp/proxy-header-v2';
import { expectCode, message, RawSmtp, seedProject, startTestMx, storedRows, type TestMx, until } from './smtp-support';
import { selfSignedCertificate } from '../../../test/support/certificate';

/** A PROXY protocol v2 header, built by proxy-protocol-js (not by the MX's reader). */
function v2Header(command: Command, client?: { v4?: number[]; v6?: number[]; port: number }, tlvs?: Buffer): Buffer {
  const address = client?.v6
    ? new IPv6ProxyAddress(IPv6Address.createFrom(client.v6), client.port, IPv6Address.createFrom([0x20, 0x01, 0x0d, 0xb8, ...Array(11).fill(0), 0x25]), 25)
    : new IPv4ProxyAddress(IPv4Address.createFrom(client?.v4 ?? [0, 0, 0, 0]), client?.port ?? 0, IPv4Address.createFrom([192, 0, 2, 1]), 25);
  const header = Buffer.from(new V2ProxyProtocol(command, TransportProtocol.STREAM, address, tlvs).build());
  // The builder's length counts the addresses only; a real header's counts its TLVs too.
  header.writeUInt16BE(header.length - 16, 14);
  return header;
}

// An AWS NLB's TLV (PP2_TYPE_AWS, subtype VPC endpoint id), as it follows the addresses.
const AWS_TLV = (() => {
  const value = Buffer.concat([Buffer.from([0x01]), Buffer.from('vpce-08d2bf15fac5001c9')]);
  return Buffer.concat([Buffer.from([0xea, value.length >> 8, value.length & 0xff]), value]);
})();

describe('the MX with a certificate and behind a PROXY-protocol load balancer', () => {
  let database: TestDatabase;
  let dir: string;
  let tls: TestMx;
  let proxied: TestMx;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mx-tls-'));
    const { certFile, keyFile } = selfSignedCertificate(dir, 'mx.mailroom.test');
    database = await createTestDatabase('smtptls');
    tls = await startTestMx({ database, env: { SMTP_TLS_CERT_FILE: certFile, SMTP_TLS_KEY_FILE: keyFile } });
    proxied = await startTestMx({ database, env: { SMTP_PROXY_PROTOCOL: 'true', SMTP_MAX_CONNECTIONS_PER_IP: '1' } });
    await seedProject(tls.pool, ['support@acme.test']);
  });
  afterAll(async () => {
    await tls.close();
    await proxied.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => tls.pool.query({ text: 'DELETE FROM received_emails' }));

  test('when SMTP_TLS_CERT_FILE/KEY_FILE are set, then STARTTLS is offered and a client that requires it delivers over TLS', async () => {
    const smtp = await RawSmtp.open(tls.mx.port);
    await smtp.reply();
    expect(await smtp.command('EHLO client.example.test')).toMatch(/^250[- ]STARTTLS$/m);
    smtp.end();
    const transport = createTransport({ host: '127.0.0.1', port: tls.mx.port, secure: false, requireTLS: true, tls: { rejectUnauthorized: false } });
    const raw = message('Over TLS');
    const info = await transport.sendMail({ envelope: { from: 'ann@example.test', to: ['support@acme.test'] }, raw });
    expect(info.response).toMatch(/^250 /);
    const [row] = await storedRows(tls.pool);
    expect(row?.raw.equals(raw)).toBe(true);
  });

  test('when commands follow STARTTLS in the same packet, then they are discarded (RFC 3207 §4.2); EHLO after TLS offers no STARTTLS and REQUIRETLS, not offered, is 555', async () => {
    const smtp = await RawSmtp.open(tls.mx.port);
    expectCode(await smtp.reply(), 220);
    expectCode(await smtp.command('EHLO client.example.test'), 250);
    smtp.write('STARTTLS\r\nMAIL FROM:<injected@evil.test>\r\nRCPT TO:<support@acme.test>\r\n');
    expect(await smtp.reply()).toMatch(/^220 /);
    expect(await smtp.startTls()).toBe('');
    // The server forgot the first EHLO with everything else said in plain text.
    expectCode(await smtp.command('MAIL FROM:<ann@example.test>'), 503);
    const ehlo = await smtp.command('EHLO client.example.test');
    expect(ehlo).toMatch(/^250 /m);
    expect(ehlo).not.toMatch(/STARTTLS|REQUIRETLS|AUTH/);
    expect(await smtp.command('MAIL FROM:<ann@example.test> REQUIRETLS')).toMatch(/^555 5\.5\.4 /);
    // Not "nested MAIL": the injected MAIL FROM never ran.
    expectCode(await smtp.command('MAIL FROM:<ann@example.test>'), 250);
    expectCode(await smtp.command('RCPT TO:<support@acme.test>'), 250);
    expectCode(await smtp.command('DATA'), 354);
    smtp.write(message('After STARTTLS'));
    expectCode(await smtp.command('.'), 250);
    smtp.end();
    const rows = await storedRows(tls.pool);
    expect(rows.map((r) => r.mail_from)).toEqual(['ann@example.test']);
  });

  test('when SMTP_PROXY_PROTOCOL=true, then the client address of the PROXY header is the remote address stored and counted per IP', async () => {
    const smtp = await RawSmtp.open(proxied.mx.port, 'PROXY TCP4 203.0.113.7 192.0.2.1 54321 25\r\n');
    await smtp.startMessage('ann@example.test', ['support@acme.test']);
    // The per-IP limit (1) counts the PROXY address: another client from it is refused, one from elsewhere is not.
    const sameIp = await RawSmtp.open(proxied.mx.port, 'PROXY TCP4 203.0.113.7 192.0.2.1 54322 25\r\n');
    expect(await sameIp.reply()).toMatch(/^421 4\.7\.0 /);
    const otherIp = await RawSmtp.open(proxied.mx.port, 'PROXY TCP4 198.51.100.9 192.0.2.1 54323 25\r\n');
    expect(await otherIp.reply()).toMatch(/^220 /);
    otherIp.end();
    smtp.write(message('Proxied'));
    expect(await smtp.command('.')).toMatch(/^250 /);
    smtp.end();
    const [row] = await storedRows(proxied.pool);
    expect(row?.remote_address).toBe('203.0.113.7');
  });

  test('when SMTP_PROXY_PROTOCOL=true and clients come from IPv6 addresses, then one /64 shares the per-IP limit whatever the address or its spelling', async () => {
    const first = await RawSmtp.open(proxied.mx.port, 'PROXY TCP6 2001:db8:7:7::1 2001:db8::25 54321 25\r\n');
    expect(await first.reply()).toMatch(/^220 /);
    // Another address of the same /64, written in full: the limit (1) is taken.
    const sameNet = await RawSmtp.open(proxied.mx.port, 'PROXY TCP6 2001:0db8:0007:0007:dead:beef:0:2 2001:db8::25 54322 25\r\n');
    expect(await sameNet.reply()).toMatch(/^421 4\.7\.0 /);
    expect(await sameNet.closedByServer()).toBe(true);
    const otherNet = await RawSmtp.open(proxied.mx.port, 'PROXY TCP6 2001:db8:7:8::1 2001:db8::25 54323 25\r\n');
    expect(await otherNet.reply()).toMatch(/^220 /);
    otherNet.end();
    expectCode(await first.command('EHLO client.example.test'), 250);
    expectCode(await first.command('MAIL FROM:<ann@example.test>'), 250);
    expectCode(await first.command('RCPT TO:<support@acme.test>'), 250);
    expectCode(await first.command('DATA'), 354);
    first.write(message('From IPv6'));
    expect(await first.command('.')).toMatch(/^250 /);
    first.end();
    const rows = await storedRows(proxied.pool);
    expect(rows.map((r) => r.remote_address)).toEqual(['2001:db8:7:7::1']);
  });

  test('when SMTP_PROXY_PROTOCOL=true and a client sends no PROXY header, then it is dropped without a session', async () => {
    const smtp = await RawSmtp.open(proxied.mx.port, 'EHLO sneaky.example.test\r\n');
    expect(await smtp.reply()).toBe('');
    expect(await smtp.closedByServer()).toBe(true);
  });

  describe('PROXY protocol v2 (binary), as AWS NLB and HAProxy send-proxy-v2 send it', () => {
    async function deliver(smtp: RawSmtp, subject: string): Promise<void> {
      await smtp.startMessage('ann@example.test', ['support@acme.test']);
      smtp.write(message(subject));
      expect(await smtp.command('.')).toMatch(/^250 /);
      smtp.end();
    }

    test('when a v2 header names an IPv4 client, then it is the remote address stored, even when the header arrives a byte at a time', async () => {
      const header = v2Header(Command.PROXY, { v4: [203, 0, 113, 8], port: 40000 });
      const smtp = await RawSmtp.open(proxied.mx.port);
      for (const byte of header) {
        smtp.write(Buffer.from([byte]));
        await new Promise((resolve) => setImmediate(resolve));
      }
      await deliver(smtp, 'v2 IPv4');
      expect((await storedRows(proxied.pool)).map((r) => r.remote_address)).toEqual(['203.0.113.8']);
    });

    test('when a v2 header names an IPv6 client and carries TLVs (an AWS VPC endpoint id), then the client is stored and the TLVs are skipped', async () => {
      const v6 = [0x20, 0x01, 0x0d, 0xb8, 0, 0x09, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x42];
      const smtp = await RawSmtp.open(proxied.mx.port, v2Header(Command.PROXY, { v6, port: 50000 }, AWS_TLV));
      await deliver(smtp, 'v2 IPv6');
      expect((await storedRows(proxied.pool)).map((r) => r.remote_address)).toEqual(['2001:db8:9::42']);
    });

    test('when a v2 header is LOCAL (the balancer\'s own health check), then the connection\'s own address stands', async () => {
      const smtp = await RawSmtp.open(proxied.mx.port, v2Header(Command.LOCAL));
      await deliver(smtp, 'v2 LOCAL');
      expect((await storedRows(proxied.pool)).map((r) => r.remote_address)).toEqual(['127.0.0.1']);
    });

    test.each([
      ['a broken signature', Buffer.concat([Buffer.from('\r\n\r\n\0\r\nQUIX\n'), Buffer.alloc(20)])],
      ['version 1 in the binary form', (() => { const h = v2Header(Command.PROXY, { v4: [203, 0, 113, 9], port: 1 }); h[12] = 0x11; return h; })()],
      ['an unknown command', (() => { const h = v2Header(Command.PROXY, { v4: [203, 0, 113, 9], port: 1 }); h[12] = 0x2f; return h; })()],
      ['a length past the longest header taken', (() => { const h = v2Header(Command.PROXY, { v4: [203, 0, 113, 9], port: 1 }); h.writeUInt16BE(MAX_V2_HEADER_BYTES, 14); return h; })()],
    ])('when a v2 header has %s, then the connection is dropped without a session', async (_what, header) => {
      const smtp = await RawSmtp.open(proxied.mx.port, header);
      expect(await smtp.reply()).toBe('');
      expect(await smtp.closedByServer()).toBe(true);
      expect(await storedRows(proxied.pool)).toEqual([]);
    });

    test('when a client disconnects in the middle of a v2 header, then no session is left and the MX keeps serving', async () => {
      const smtp = await RawSmtp.open(proxied.mx.port, v2Header(Command.PROXY, { v4: [203, 0, 113, 10], port: 1 }).subarray(0, 20));
      smtp.end();
      const next = await RawSmtp.open(proxied.mx.port, v2Header(Command.PROXY, { v4: [203, 0, 113, 11], port: 2 }));
      await deliver(next, 'after a cut header');
      expect((await storedRows(proxied.pool)).map((r) => r.remote_address)).toEqual(['203.0.113.11']);
    });

    test.each(['v1', 'v2'] as const)('when HAProxy in front of the MX sends PROXY %s, then the address the client connected from is the one stored', async (version) => {
      const haproxy = await startHaproxy({ backendPort: proxied.mx.port, mode: 'tcp', proxyProtocol: version });
      try {
        // The client connects from 127.0.0.2; HAProxy connects to the MX from 127.0.0.1.
        const transport = createTransport({ host: '127.0.0.1', port: haproxy.port, localAddress: '127.0.0.2', secure: false, ignoreTLS: true });
        const info = await transport.sendMail({ from: 'ann@example.test', to: 'support@acme.test', subject: `Through HAProxy ${version}`, text: 'Hello.' });
        transport.close();
        expect(info.response).toMatch(/^250 /);
        await until(async () => (await storedRows(proxied.pool)).length === 1);
        expect((await storedRows(proxied.pool)).map((r) => r.remote_address)).toEqual(['127.0.0.2']);
      } finally {
        await haproxy.stop();
      }
    });
  });
});
