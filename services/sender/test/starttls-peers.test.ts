import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';
import type { Deliverer, DeliveryOutcome } from '../src/delivery';
import { peerDeliverers } from './support/peer-deliverers';
import { selfSignedCertificate } from '../../../test/support/certificate';

/**
 * STARTTLS probes of the sender's SMTP client (the "NO STARTTLS" class, Poddebniak et al.,
 * USENIX Security 2021): a peer that answers STARTTLS with its 220 and forged plaintext replies
 * in the same segment (response injection), refuses STARTTLS after offering it, cuts the
 * handshake, or offers no STARTTLS at all.
 */

/**
 * What a scripted peer does with one command line: send these bytes, hang up, or send these
 * bytes and then speak TLS (the server side of a real handshake), or send them and hang up at
 * the client's first handshake byte.
 */
type Action = string | { close: true } | { startTls: string } | { cutHandshake: string; reset?: boolean };

/** Decides the action for one command line; 'DOT' stands for the end of the message data. */
type Script = (command: string, secure: boolean) => Action;

interface Received {
  line: string;
  /** Received inside TLS. */
  secure: boolean;
}

interface TlsPeer {
  port: number;
  /** Every command line received, over every connection. */
  commands: Received[];
  /** Message data received, one entry per final dot. */
  messages: Array<{ data: Buffer; secure: boolean }>;
  /** TCP connections accepted. */
  connections: number;
  stop(): Promise<void>;
}

/** A raw SMTP peer on 127.0.0.1 that answers exactly as scripted, in plaintext and, after its 220 to STARTTLS, in TLS. */
async function tlsPeer(credentials: { key: Buffer; cert: Buffer }, greeting: string, script: Script): Promise<TlsPeer> {
  const sockets = new Set<Socket>();
  const peer: TlsPeer = { port: 0, commands: [], messages: [], connections: 0, stop: async () => undefined };

  const serve = (stream: Socket, raw: Socket, secure: boolean) => {
    let buffered = Buffer.alloc(0);
    let inData = false;
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        if (inData) {
          const end = buffered.indexOf('\r\n.\r\n');
          if (end < 0) return;
          peer.messages.push({ data: buffered.subarray(0, end + 2), secure });
          buffered = buffered.subarray(end + 5);
          inData = false;
          stream.write(actionText(script('DOT', secure)));
          continue;
        }
        const eol = buffered.indexOf('\r\n');
        if (eol < 0) return;
        const line = buffered.subarray(0, eol).toString('latin1');
        buffered = buffered.subarray(eol + 2);
        peer.commands.push({ line, secure });
        const action = script(line, secure);
        if (typeof action === 'string') {
          if (/^DATA$/i.test(line) && action.startsWith('354')) inData = true;
          stream.write(action);
        } else if ('close' in action) {
          stream.destroy();
          return;
        } else {
          // The reply and whatever the script appends to it leave in one write, one segment.
          stream.removeListener('data', onData);
          stream.write('startTls' in action ? action.startTls : action.cutHandshake);
          if ('cutHandshake' in action) {
            const { reset } = action;
            raw.once('data', () => (reset ? raw.resetAndDestroy() : raw.destroy()));
            return;
          }
          const tls = new TLSSocket(raw, { isServer: true, key: credentials.key, cert: credentials.cert });
          tls.on('error', () => undefined);
          serve(tls, raw, true);
          return;
        }
      }
    };
    stream.on('data', onData);
  };

  const server = createServer((socket) => {
    peer.connections += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    serve(socket, socket, false);
    socket.write(greeting);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  peer.port = (server.address() as AddressInfo).port;
  peer.stop = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return peer;
}

function actionText(action: Action): string {
  if (typeof action !== 'string') throw new Error('only a reply is scripted after the final dot');
  return action;
}

const REAL_FINAL_REPLY = '250 2.0.0 Queued as REAL-ID';

/**
 * A peer that offers STARTTLS in plaintext and accepts everything; `starttls` is its answer to
 * STARTTLS, `override` replaces any other answer (return undefined to keep it).
 */
function mxScript(starttls: Action | null, override: (command: string, secure: boolean) => Action | undefined = () => undefined): Script {
  return (command, secure) => {
    const action = override(command, secure);
    if (action !== undefined) return action;
    if (/^EHLO /i.test(command)) return secure ? '250-mx.test\r\n250-PIPELINING\r\n250 8BITMIME\r\n' : `250-mx.test\r\n250-PIPELINING\r\n${starttls ? '250-STARTTLS\r\n' : ''}250 8BITMIME\r\n`;
    if (/^STARTTLS$/i.test(command)) return starttls ?? '502 5.5.1 Not implemented\r\n';
    if (/^DATA$/i.test(command)) return '354 End data with <CR><LF>.<CR><LF>\r\n';
    if (command === 'DOT') return `${REAL_FINAL_REPLY}\r\n`;
    if (/^QUIT$/i.test(command)) return '221 2.0.0 Bye\r\n';
    if (/^AUTH /i.test(command)) return '235 2.7.0 Authentication successful\r\n';
    return '250 2.0.0 OK\r\n';
  };
}


const RAW = Buffer.from('From: a@mailroom.test\r\nTo: x@example.test\r\nSubject: starttls\r\nMessage-ID: <s@mailroom.test>\r\n\r\nHello.\r\n');

const READY = '220 2.0.0 Ready to start TLS\r\n';

describe('the sender against STARTTLS peers', () => {
  let dir: string;
  let credentials: { key: Buffer; cert: Buffer };
  const cleanups: Array<() => Promise<void>> = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sender-starttls-'));
    const { certFile, keyFile } = selfSignedCertificate(dir, 'mx.example.test');
    credentials = { key: readFileSync(keyFile), cert: readFileSync(certFile) };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function peer(script: Script): Promise<TlsPeer> {
    const started = await tlsPeer(credentials, '220 mx.test ESMTP\r\n', script);
    cleanups.push(started.stop);
    return started;
  }

  const { deliverer, direct } = peerDeliverers(cleanups, 5_000);

  const deliver = (d: Deliverer): Promise<DeliveryOutcome> => d.deliver({ envelopeFrom: 'bounces@mailroom.test', recipient: 'x@example.test', raw: RAW });

  const lines = (p: TlsPeer, secure: boolean) => p.commands.filter((c) => c.secure === secure).map((c) => c.line.replace(/^(\S+).*$/, '$1').toUpperCase());

  describe('forged plaintext after the 220 to STARTTLS, in the same segment (RFC 3207 §4.2)', () => {
    test.each([
      ['a second EHLO reply offering AUTH', '250-evil.test\r\n250 AUTH PLAIN\r\n'],
      ['an EHLO reply with SIZE 1, which would refuse the message', '250-evil.test\r\n250 SIZE 1\r\n'],
      ['replies meant for the commands after EHLO', '250 2.1.0 forged MAIL reply\r\n550 5.1.1 forged: no such user\r\n'],
      ['a refusal of the next command', '554 5.7.1 forged refusal\r\n'],
      ['a reply fragment without its line end', '550 5.7.1 forged fragment '],
    ])('when it is %s, then it is discarded: the session inside TLS starts with EHLO and the message is delivered', async (_what, forged) => {
      const mx = await peer(mxScript({ startTls: `${READY}${forged}` }));

      const outcome = await deliver(await direct(mx.port));

      expect(outcome).toEqual({ kind: 'delivered', host: 'mx.example.test', smtp: { code: 250, enhancedCode: '2.0.0', message: 'Queued as REAL-ID' } });
      expect(lines(mx, false)).toEqual(['EHLO', 'STARTTLS']);
      // Each command waited for its own reply: nothing forged was read as one.
      expect(lines(mx, true)).toEqual(['EHLO', 'MAIL', 'RCPT', 'DATA']);
      expect(mx.messages).toEqual([{ data: RAW, secure: true }]);
      expect(mx.connections).toBe(1);
    });
  });

  test('when the MX offers STARTTLS and then answers 454, then the message is delivered in plaintext on the same connection (opportunistic TLS)', async () => {
    const mx = await peer(mxScript('454 4.7.0 TLS not available due to temporary reason\r\n'));

    const outcome = await deliver(await direct(mx.port));

    expect(outcome).toMatchObject({ kind: 'delivered', smtp: { code: 250 } });
    expect(lines(mx, false)).toEqual(['EHLO', 'STARTTLS', 'MAIL', 'RCPT', 'DATA']);
    expect(mx.messages).toEqual([{ data: RAW, secure: false }]);
    expect(mx.connections).toBe(1);
  });

  test('when the MX closes the connection during the TLS handshake, then the message goes to that MX again in plaintext', async () => {
    const mx = await peer(mxScript({ cutHandshake: READY }));

    const outcome = await deliver(await direct(mx.port));

    expect(outcome).toMatchObject({ kind: 'delivered', smtp: { code: 250 } });
    expect(mx.connections).toBe(2);
    expect(lines(mx, false)).toEqual(['EHLO', 'STARTTLS', 'EHLO', 'MAIL', 'RCPT', 'DATA']);
    expect(mx.messages).toEqual([{ data: RAW, secure: false }]);
  });

  test('when the MX resets the connection during the TLS handshake, then it is deferred for a retry, never bounced', async () => {
    // A reset is Node's plain `read ECONNRESET`, which does not say it came during the handshake.
    const mx = await peer(mxScript({ cutHandshake: READY, reset: true }));

    const outcome = await deliver(await direct(mx.port));

    expect(outcome).toMatchObject({ kind: 'deferred', smtp: null });
    expect(mx.messages).toEqual([]);
  });

  test('when the MX cuts the handshake and then the plaintext session too, then it is deferred for a retry, never bounced', async () => {
    const mx = await peer(mxScript({ cutHandshake: READY }, (command) => (/^MAIL /i.test(command) ? { close: true } : undefined)));

    const outcome = await deliver(await direct(mx.port));

    expect(outcome).toMatchObject({ kind: 'deferred', smtp: null });
    expect(mx.messages).toEqual([]);
  });

  test('when the MX offers no STARTTLS, then the message is delivered in plaintext without trying it', async () => {
    const mx = await peer(mxScript(null));

    const outcome = await deliver(await direct(mx.port));

    expect(outcome).toMatchObject({ kind: 'delivered', smtp: { code: 250 } });
    expect(lines(mx, false)).toEqual(['EHLO', 'MAIL', 'RCPT', 'DATA']);
    expect(mx.messages).toEqual([{ data: RAW, secure: false }]);
  });

  describe('a smarthost with credentials (smtp://user:pass@)', () => {
    const relay = (port: number, query = '?tls.rejectUnauthorized=false') =>
      deliverer({ mxPort: 1, outboundSmtpUrl: `smtp://relay:s3cret-pass@127.0.0.1:${port}${query}` });
    const sentPassword = (p: TlsPeer) => p.commands.some((c) => c.line.includes('s3cret-pass') || c.line.includes(Buffer.from('\0relay\0s3cret-pass').toString('base64')));

    test('when it offers STARTTLS, then the credentials and the message go inside TLS', async () => {
      const smarthost = await peer(mxScript({ startTls: READY }, (command, secure) => (/^EHLO /i.test(command) && secure ? '250-relay.test\r\n250 AUTH PLAIN LOGIN\r\n' : undefined)));

      const outcome = await deliver(relay(smarthost.port));

      expect(outcome).toMatchObject({ kind: 'delivered', smtp: { code: 250 } });
      expect(lines(smarthost, true)).toEqual(['EHLO', 'AUTH', 'MAIL', 'RCPT', 'DATA']);
      expect(lines(smarthost, false)).toEqual(['EHLO', 'STARTTLS']);
    });

    test.each([
      ['offers no STARTTLS (an attacker stripped it from EHLO)', null],
      ['answers STARTTLS with 454', '454 4.7.0 TLS not available\r\n'],
    ])('when it %s, then it is deferred and the password is never sent in plaintext', async (_what, starttls) => {
      const smarthost = await peer(mxScript(starttls, (command) => (/^EHLO /i.test(command) ? `250-relay.test\r\n${starttls ? '250-STARTTLS\r\n' : ''}250 AUTH PLAIN LOGIN\r\n` : undefined)));

      const outcome = await deliver(relay(smarthost.port));

      expect(outcome).toMatchObject({ kind: 'deferred' });
      expect(sentPassword(smarthost)).toBe(false);
      expect(lines(smarthost, false)).not.toContain('AUTH');
      expect(smarthost.messages).toEqual([]);
    });

    test('when its URL says ?requireTLS=false, then an operator who chose a plaintext smarthost still gets mail through it', async () => {
      const smarthost = await peer(mxScript(null, (command) => (/^EHLO /i.test(command) ? '250-relay.test\r\n250 AUTH PLAIN LOGIN\r\n' : undefined)));

      const outcome = await deliver(relay(smarthost.port, '?requireTLS=false'));

      expect(outcome).toMatchObject({ kind: 'delivered', smtp: { code: 250 } });
      expect(lines(smarthost, false)).toEqual(['EHLO', 'AUTH', 'MAIL', 'RCPT', 'DATA']);
    });
  });
});
