import { once } from 'node:events';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import type { Logger } from '@mailroom/core';
import { type DnsServer as DnsServerType, DnsServer, type DnsZone } from '../../../test/support/dns-server';
import { type SinkRule, SmtpSink, type SmtpSinkOptions } from '../../../test/support/smtp-sink';
import { Deliverer, type DelivererOptions } from '../src/delivery';

/** A logger that keeps every entry as JSON text, so tests can look for what must not be logged. */
function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const make = (bindings: object): unknown => {
    const write = (...args: unknown[]) => lines.push(JSON.stringify([bindings, ...args]));
    return {
      child: (more: object) => make({ ...bindings, ...more }),
      trace: write,
      debug: write,
      info: write,
      warn: write,
      error: write,
      fatal: write,
    };
  };
  return { logger: make({}) as Logger, lines };
}

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A TCP server that accepts connections and never says a word, like a stuck MX. */
async function silentServer(host: string, port: number): Promise<{ server: Server; stop: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => sockets.add(socket));
  server.listen(port, host);
  await once(server, 'listening');
  return {
    server,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function rawMessage(subject: string, body = 'Hello.\r\n'): Buffer {
  return Buffer.from(
    `From: Sender <sender@mailroom.test>\r\nTo: someone@example.test\r\nSubject: ${subject}\r\n` +
      `Message-ID: <${subject.replace(/\W/g, '')}@mailroom.test>\r\nMIME-Version: 1.0\r\n` +
      `Content-Type: text/plain; charset=utf-8\r\n\r\n${body}`,
  );
}

const MX_ZONE: DnsZone = {
  'example.test': { MX: [{ preference: 10, exchange: 'mx.example.test' }] },
  'mx.example.test': { A: ['127.0.0.1'] },
};

describe('Deliverer', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    // Deliverers first (they hold client connections), then the servers.
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function sink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
    const server = await new SmtpSink(options).start();
    cleanups.push(() => server.stop());
    return server;
  }

  async function dns(zone: DnsZone, extra: { servfail?: string[] } = {}): Promise<DnsServerType> {
    const server = await new DnsServer({ zone, ...extra }).start();
    cleanups.push(() => server.stop());
    return server;
  }

  function deliverer(options: Partial<DelivererOptions> & Pick<DelivererOptions, 'mxPort'>): Deliverer {
    const instance = new Deliverer({
      allowPrivateNetworks: true,
      heloName: 'sender.mailroom.test',
      logger: recordingLogger().logger,
      connectionTimeoutMs: 2_000,
      ...options,
    });
    cleanups.push(() => instance.close());
    return instance;
  }

  /** A sink replying per `rule` at RCPT, behind MX_ZONE's DNS, and a deliverer pointed at both. */
  async function directSetup(options: SmtpSinkOptions = {}, delivererOptions: Partial<DelivererOptions> = {}) {
    const smtp = await sink(options);
    const nameServer = await dns(MX_ZONE);
    const direct = deliverer({ mxPort: smtp.port, dnsServers: [nameServer.address], ...delivererOptions });
    return { smtp, direct };
  }

  const rejectAll =
    (code: number, message: string): SinkRule =>
    () => ({ code, message });

  describe('through a smarthost', () => {
    it('when the smarthost answers 250, then it is delivered with the exact bytes, envelope and credentials from the URL', async () => {
      const smtp = await sink({ auth: { user: 'relay', pass: 'p@ss:w/rd' } });
      const { logger, lines } = recordingLogger();
      const viaRelay = deliverer({
        mxPort: 1,
        outboundSmtpUrl: `smtp://relay:${encodeURIComponent('p@ss:w/rd')}@127.0.0.1:${smtp.port}?tls.rejectUnauthorized=false`,
        logger,
      });
      const raw = rawMessage('smarthost', 'Line one\r\n.leading dot\r\nLast line\r\n');

      const outcome = await viaRelay.deliver({ envelopeFrom: 'bounces+abc@mailroom.test', recipient: 'someone@example.test', raw });

      expect(outcome).toEqual({
        kind: 'delivered',
        smtp: { code: 250, enhancedCode: null, message: 'OK: queued' },
        host: '127.0.0.1',
      });
      const [message] = await smtp.waitFor(1);
      expect(message?.raw.equals(raw)).toBe(true);
      expect(message).toMatchObject({
        from: 'bounces+abc@mailroom.test',
        recipients: ['someone@example.test'],
        user: 'relay',
        secure: true, // smtp:// upgrades with STARTTLS when offered
        heloName: 'sender.mailroom.test',
      });
      expect(lines.join('\n')).not.toContain('p@ss');
      expect(lines.join('\n')).not.toContain(encodeURIComponent('p@ss:w/rd'));
    });

    it('when the URL is smtps://, then TLS is used from the first byte', async () => {
      const smtp = await sink({ implicitTls: true, starttls: false });
      const viaRelay = deliverer({ mxPort: 1, outboundSmtpUrl: `smtps://127.0.0.1:${smtp.port}?tls.rejectUnauthorized=false` });

      const outcome = await viaRelay.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: rawMessage('tls') });

      expect(outcome.kind).toBe('delivered');
      expect((await smtp.waitFor(1))[0]?.secure).toBe(true);
    });

    it('when the smarthost offers STARTTLS with an untrusted certificate, then it is deferred: the certificate is verified', async () => {
      const smtp = await sink();
      const viaRelay = deliverer({ mxPort: 1, outboundSmtpUrl: `smtp://127.0.0.1:${smtp.port}` });

      const outcome = await viaRelay.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: rawMessage('cert') });

      expect(outcome).toMatchObject({ kind: 'deferred', smtp: null });
      // smtp-server's built-in certificate is self-signed and has expired.
      expect(outcome.kind === 'deferred' && outcome.error).toMatch(/certificate/);
      expect(smtp.transactions).toBe(0);
    });

    it('when the smarthost refuses our credentials, then it is deferred, never bounced', async () => {
      const smtp = await sink({ auth: { user: 'relay', pass: 'right' } });
      const viaRelay = deliverer({ mxPort: 1, outboundSmtpUrl: `smtp://relay:wrong@127.0.0.1:${smtp.port}?tls.rejectUnauthorized=false` });

      const outcome = await viaRelay.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: rawMessage('auth') });

      expect(outcome).toMatchObject({ kind: 'deferred', smtp: { code: 535, enhancedCode: '5.7.8' } });
      expect(smtp.messages).toHaveLength(0);
    });
  });

  describe('directly to MX', () => {
    it('when the MX answers 250, then it is delivered over STARTTLS with the MX name as SNI', async () => {
      const { smtp, direct } = await directSetup();
      const raw = rawMessage('direct');

      const outcome = await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'Someone@Example.test', raw });

      expect(outcome).toMatchObject({ kind: 'delivered', host: 'mx.example.test', smtp: { code: 250 } });
      const [message] = await smtp.waitFor(1);
      expect(message?.raw.equals(raw)).toBe(true);
      expect(message).toMatchObject({ secure: true, servername: 'mx.example.test', recipients: ['Someone@example.test'] }); // nodemailer lowercases the domain
    });

    it('when the MX does not offer STARTTLS, then it is delivered in plaintext', async () => {
      const { smtp, direct } = await directSetup({ starttls: false });

      const outcome = await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: rawMessage('plain') });

      expect(outcome.kind).toBe('delivered');
      expect((await smtp.waitFor(1))[0]?.secure).toBe(false);
    });

    it('when the envelope sender is empty, then MAIL FROM is the null sender', async () => {
      const { smtp, direct } = await directSetup();

      const outcome = await direct.deliver({ envelopeFrom: '', recipient: 'x@example.test', raw: rawMessage('dsn') });

      expect(outcome.kind).toBe('delivered');
      expect((await smtp.waitFor(1))[0]?.from).toBe('');
    });

    it('when the preferred MX refuses connections, then the next MX by preference gets the message', async () => {
      const smtp = await sink();
      const nameServer = await dns({
        // Listed out of order: the deliverer must sort by preference.
        'example.test': {
          MX: [
            { preference: 20, exchange: 'backup.example.test' },
            { preference: 10, exchange: 'dead.example.test' },
          ],
        },
        'dead.example.test': { A: ['127.0.0.2'] }, // loopback, but nothing listens there
        'backup.example.test': { A: ['127.0.0.1'] },
      });
      const direct = deliverer({ mxPort: smtp.port, dnsServers: [nameServer.address] });

      const outcome = await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: rawMessage('fallback') });

      expect(outcome).toMatchObject({ kind: 'delivered', host: 'backup.example.test' });
      expect(nameServer.queries.map((q) => `${q.type} ${q.name}`)).toEqual(
        expect.arrayContaining(['MX example.test', 'A dead.example.test', 'A backup.example.test']),
      );
    });

    it('when the preferred MX accepts the connection but never greets, then the next MX gets the message after the connection timeout', async () => {
      const smtp = await sink();
      const stuck = await silentServer('127.0.0.2', smtp.port);
      cleanups.push(stuck.stop);
      const nameServer = await dns({
        'example.test': {
          MX: [
            { preference: 10, exchange: 'stuck.example.test' },
            { preference: 20, exchange: 'backup.example.test' },
          ],
        },
        'stuck.example.test': { A: ['127.0.0.2'] },
        'backup.example.test': { A: ['127.0.0.1'] },
      });
      const direct = deliverer({ mxPort: smtp.port, dnsServers: [nameServer.address], connectionTimeoutMs: 300 });

      const outcome = await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: rawMessage('stuck') });

      expect(outcome).toMatchObject({ kind: 'delivered', host: 'backup.example.test' });
    });

    it('when the whole delivery takes longer than totalTimeoutMs, then it is deferred', async () => {
      const port = await closedPort();
      const stuck = await silentServer('127.0.0.1', port);
      cleanups.push(stuck.stop);
      const nameServer = await dns(MX_ZONE);
      const direct = deliverer({ mxPort: port, dnsServers: [nameServer.address], connectionTimeoutMs: 5_000, totalTimeoutMs: 300 });

      const startedAt = Date.now();
      const outcome = await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: rawMessage('slow') });

      expect(outcome).toMatchObject({ kind: 'deferred', smtp: null });
      expect(Date.now() - startedAt).toBeLessThan(2_000);
    });

    it('when the domain has no MX but an address, then the domain itself is the MX', async () => {
      const smtp = await sink();
      const nameServer = await dns({ 'example.test': { A: ['127.0.0.1'] } });
      const direct = deliverer({ mxPort: smtp.port, dnsServers: [nameServer.address] });

      const outcome = await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: rawMessage('implicit') });

      expect(outcome).toMatchObject({ kind: 'delivered', host: 'example.test' });
      expect(smtp.messages).toHaveLength(1);
    });

    it('when the domain does not exist, then it bounces hard, suppressed, with 5.1.2 and no connection', async () => {
      const smtp = await sink();
      const nameServer = await dns({});
      const direct = deliverer({ mxPort: smtp.port, dnsServers: [nameServer.address] });

      const outcome = await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@nowhere.test', raw: rawMessage('nx') });

      expect(outcome).toMatchObject({
        kind: 'bounced',
        bounceType: 'hard',
        suppress: true,
        smtp: { code: null, enhancedCode: '5.1.2' },
      });
      expect(smtp.connections).toBe(0);
    });

    it('when the domain publishes a null MX, then it bounces hard with 5.1.10', async () => {
      const smtp = await sink();
      const nameServer = await dns({ 'example.test': { MX: [{ preference: 0, exchange: '.' }], A: ['127.0.0.1'] } });
      const direct = deliverer({ mxPort: smtp.port, dnsServers: [nameServer.address] });

      const outcome = await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: rawMessage('null') });

      expect(outcome).toMatchObject({ kind: 'bounced', bounceType: 'hard', suppress: true, smtp: { enhancedCode: '5.1.10' } });
      expect(smtp.connections).toBe(0);
    });

    it('when DNS answers SERVFAIL, then it is deferred', async () => {
      const smtp = await sink();
      const nameServer = await dns(MX_ZONE, { servfail: ['example.test'] });
      const direct = deliverer({ mxPort: smtp.port, dnsServers: [nameServer.address] });

      const outcome = await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: rawMessage('servfail') });

      expect(outcome).toMatchObject({ kind: 'deferred', smtp: null, retryAfterSeconds: null });
      expect(outcome.kind === 'deferred' && outcome.error).toMatch(/ESERVFAIL/);
    });

    it('when the MX resolves to a private address and private networks are not allowed, then it bounces by policy without suppression', async () => {
      const { smtp, direct } = await directSetup({}, { allowPrivateNetworks: false });

      const outcome = await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: rawMessage('private') });

      expect(outcome).toMatchObject({ kind: 'bounced', bounceType: 'policy', suppress: false });
      expect(outcome.smtp?.message).toMatch(/mx\.example\.test.*private/);
      expect(smtp.connections).toBe(0);
    });

    it('when no MX accepts connections, then it is deferred without an SMTP reply', async () => {
      const nameServer = await dns(MX_ZONE);
      const direct = deliverer({ mxPort: await closedPort(), dnsServers: [nameServer.address] });

      const outcome = await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: rawMessage('refused') });

      expect(outcome).toMatchObject({ kind: 'deferred', smtp: null, retryAfterSeconds: null });
      expect(outcome.kind === 'deferred' && outcome.error).toMatch(/mx\.example\.test \[127\.0\.0\.1\].*ECONNREFUSED/);
    });
  });

  describe('classifying the replies of a real server', () => {
    it('when the MX advertises a SIZE smaller than the message, then no MAIL is sent and it bounces 5.3.4 (RFC 1870 §6.1)', async () => {
      const { smtp, direct } = await directSetup({ size: 100 });

      const outcome = await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: rawMessage('big', `${'y'.repeat(400)}\r\n`) });

      expect(outcome).toMatchObject({ kind: 'bounced', bounceType: 'soft', suppress: false, smtp: { code: null, enhancedCode: '5.3.4' } });
      expect(smtp.messages).toEqual([]);
    });

    it('when RCPT gets 451 4.7.1 "try again in 120 seconds", then it is deferred with retryAfterSeconds 120', async () => {
      const { direct } = await directSetup({ rcpt: rejectAll(451, '4.7.1 Greylisted, try again in 120 seconds') });

      const outcome = await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: rawMessage('grey') });

      expect(outcome).toEqual({
        kind: 'deferred',
        smtp: { code: 451, enhancedCode: '4.7.1', message: 'Greylisted, try again in 120 seconds' },
        error: expect.stringContaining('451 4.7.1'),
        retryAfterSeconds: 120,
      });
    });

    it('when RCPT gets 550 5.1.1, then it bounces hard and the address is suppressed', async () => {
      const { direct } = await directSetup({ rcpt: rejectAll(550, '5.1.1 <x@example.test>: no such user') });

      const outcome = await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: rawMessage('unknown') });

      expect(outcome).toEqual({
        kind: 'bounced',
        smtp: { code: 550, enhancedCode: '5.1.1', message: '<x@example.test>: no such user' },
        bounceType: 'hard',
        suppress: true,
        code: '5.1.1',
      });
    });

    it('when RCPT gets 550 5.7.1, then it bounces by policy without suppression', async () => {
      const { direct } = await directSetup({ rcpt: rejectAll(550, '5.7.1 Message rejected as spam') });

      const outcome = await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: rawMessage('spam') });

      expect(outcome).toMatchObject({ kind: 'bounced', bounceType: 'policy', suppress: false, smtp: { code: 550, enhancedCode: '5.7.1' } });
    });

    it('when DATA gets 552 5.2.2, then it bounces soft without suppression', async () => {
      const { smtp, direct } = await directSetup({ data: rejectAll(552, '5.2.2 Mailbox full') });

      const outcome = await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: rawMessage('full') });

      expect(outcome).toMatchObject({ kind: 'bounced', bounceType: 'soft', suppress: false, smtp: { code: 552, enhancedCode: '5.2.2' } });
      expect(smtp.messages).toHaveLength(0);
    });

    it('when MAIL FROM gets 550 5.1.8, then it bounces hard but the recipient is not suppressed', async () => {
      const { direct } = await directSetup({ mail: () => ({ code: 550, message: '5.1.8 Sender domain has no MX' }) });

      const outcome = await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: rawMessage('sender') });

      expect(outcome).toMatchObject({ kind: 'bounced', bounceType: 'hard', suppress: false, smtp: { enhancedCode: '5.1.8' } });
    });

    it('when a recipient is deferred once and accepted on the next attempt, then the second delivery succeeds', async () => {
      const { smtp, direct } = await directSetup({
        rcpt: (_recipient, attempt) => (attempt === 1 ? { code: 450, message: '4.2.0 Try later' } : { code: 250, message: 'OK' }),
      });
      const request = { envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: rawMessage('again') };

      expect((await direct.deliver(request)).kind).toBe('deferred');
      expect((await direct.deliver(request)).kind).toBe('delivered');
      expect(smtp.attempts('x@example.test')).toBe(2);
    });
  });

  describe('lifecycle', () => {
    it('when deliver is called after close, then it throws', async () => {
      const { direct } = await directSetup();
      await direct.close();

      await expect(direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: 'x@example.test', raw: rawMessage('late') })).rejects.toThrow(
        /after close/,
      );
    });
  });

  describe('messages given as parts', () => {
    /** A 60 kB message in three parts (the middle one inserted), as a skeleton's prefix, a recipient's part and the suffix. */
    const parts = (subject: string): Buffer[] => {
      const whole = rawMessage(subject, 'Body line.\r\n'.repeat(5000));
      return [whole.subarray(0, 100), Buffer.from('X-Part: middle\r\n'), whole.subarray(100)];
    };

    it('when a message is given as parts, then the server receives their concatenation, each time it is sent', async () => {
      const { smtp, direct } = await directSetup();
      const raw = parts('parts');

      for (const recipient of ['a@example.test', 'b@example.test']) {
        expect((await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient, raw })).kind).toBe('delivered');
      }

      const messages = await smtp.waitFor(2);
      expect(messages.map((message) => message.raw.equals(Buffer.concat(raw)))).toEqual([true, true]);
      expect(smtp.connections).toBe(1);
    });
  });

  describe('connection pooling', () => {
    it('when 20 messages go to one host at once, then they share at most maxConnectionsPerHost connections', async () => {
      const { smtp, direct } = await directSetup({}, { maxConnectionsPerHost: 3 });
      const raw = rawMessage('pooled');

      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, i) => direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: `r${i}@example.test`, raw })),
      );

      expect(outcomes.every((outcome) => outcome.kind === 'delivered')).toBe(true);
      expect(smtp.transactions).toBe(20);
      expect(smtp.connections).toBeLessThanOrEqual(3);
      expect(smtp.messages.every((message) => message.raw.equals(raw))).toBe(true);
    });

    it('when messages are sent one after another, then the same connection is reused', async () => {
      const { smtp, direct } = await directSetup();

      for (let i = 0; i < 5; i += 1) {
        await direct.deliver({ envelopeFrom: 'b@mailroom.test', recipient: `r${i}@example.test`, raw: rawMessage(`seq${i}`) });
      }

      expect(smtp.transactions).toBe(5);
      expect(smtp.connections).toBe(1);
    });
  });
});
