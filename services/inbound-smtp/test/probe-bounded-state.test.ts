import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { Client } from 'pg';
import { selfSignedCertificate } from '../../../test/support/certificate';
import { ConnectionLimits } from '../src/smtp/connection-limits';
import { Transactions } from '../src/smtp/transactions';
import { UnknownRecipients } from '../src/smtp/unknown-recipients';
import { expectCode, message, RawSmtp, seedProject, startTestMx, type TestMx, until } from './smtp-support';

// The MX's per-session bookkeeping, reached through the instances its server made: each spy
// calls through and remembers `this`.
const admit = jest.spyOn(ConnectionLimits.prototype, 'admit');
const begin = jest.spyOn(Transactions.prototype, 'begin');
const refuse = jest.spyOn(UnknownRecipients.prototype, 'refuse');
const only = <T>(contexts: unknown[]): T => {
  const [first] = new Set(contexts);
  if (first === undefined) throw new Error('the MX has not used it yet');
  return first as T;
};
const limits = () => only<ConnectionLimits>(admit.mock.contexts);
const transactions = () => only<Transactions>(begin.mock.contexts);
const unknown = () => only<UnknownRecipients>(refuse.mock.contexts);

let clientCount = 0;
/** A PROXY v1 header naming a client address no other connection of this file uses. */
function proxyHeader(family: 4 | 6 = 4): string {
  const n = ++clientCount;
  return family === 4
    ? `PROXY TCP4 10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255} 192.0.2.1 40000 25\r\n`
    : `PROXY TCP6 2001:db8:${n.toString(16)}::1 2001:db8::25 40000 25\r\n`;
}

/** A raw connection reading replies; `upTo(n)` resolves once n final reply lines have come (or the connection closed). */
async function open(port: number, preface: string): Promise<{ socket: Socket; upTo(n: number): Promise<void> }> {
  const socket = connect({ port, host: '127.0.0.1' });
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  socket.write(preface);
  let text = '';
  const waiters: (() => void)[] = [];
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    text += chunk;
    for (const w of waiters.splice(0)) w();
  });
  socket.on('close', () => {
    for (const w of waiters.splice(0)) w();
  });
  const finals = () => (text.match(/^\d{3} /gm) ?? []).length;
  const upTo = async (n: number) => {
    while (finals() < n && !socket.destroyed) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return { socket, upTo };
}

async function drop(socket: Socket): Promise<void> {
  socket.destroy();
  if (!socket.closed) await once(socket, 'close');
}

describe('the MX keeps no state for clients that are gone', () => {
  let t: TestMx;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mx-bounded-'));
    const { certFile, keyFile } = selfSignedCertificate(dir, 'mx.mailroom.test');
    t = await startTestMx({
      label: 'probebounded',
      env: { SMTP_PROXY_PROTOCOL: 'true', SMTP_TLS_CERT_FILE: certFile, SMTP_TLS_KEY_FILE: keyFile, INBOUND_ROLE: 'smtp', SMTP_MAX_CONNECTIONS: '2000' },
    });
    await seedProject(t.pool, ['*@acme.test']);
    // One finished session with an unknown recipient and a message: the spies meet the MX's instances.
    const smtp = await RawSmtp.open(t.mx.port, proxyHeader());
    await smtp.reply();
    await smtp.command('EHLO client.example.test');
    expectCode(await smtp.command('MAIL FROM:<ann@example.test>'), 250);
    expectCode(await smtp.command('RCPT TO:<nobody@nowhere.test>'), 550);
    expectCode(await smtp.command('RCPT TO:<support@acme.test>'), 250);
    expectCode(await smtp.command('DATA'), 354);
    smtp.write(message('Warm-up'));
    expectCode(await smtp.command('.'), 250);
    await smtp.command('QUIT');
    await until(async () => limits().open === 0, 5_000, 'the warm-up session to close');
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('when clients leave while their RCPT TO is being looked up, then nothing is kept for their sessions once the lookups end', async () => {
    const sessions = 200;
    // Every route lookup waits for this lock, so each client leaves while its lookup is in flight.
    const locker = new Client({ connectionString: t.database.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE routes IN ACCESS EXCLUSIVE MODE');
      const clients = await Promise.all(
        Array.from({ length: sessions }, async (_, i) => {
          const client = await open(t.mx.port, proxyHeader());
          await client.upTo(1);
          // Half to a routed address, half to an unknown one.
          client.socket.write(`EHLO client.example.test\r\nMAIL FROM:<ann@example.test>\r\nRCPT TO:<${i % 2 ? `user${i}@acme.test` : `nobody${i}@nowhere.test`}>\r\n`);
          await client.upTo(3);
          return client;
        }),
      );
      const { pool } = t;
      await until(async () => pool.totalCount - pool.idleCount + pool.waitingCount >= sessions, 10_000, 'every RCPT TO to be looked up');
      await Promise.all(clients.map((c) => drop(c.socket)));
      await until(async () => limits().open === 0, 10_000, 'the MX to close every session');
      await locker.query('COMMIT');
      await until(async () => pool.waitingCount === 0 && pool.idleCount === pool.totalCount, 10_000, 'the lookups to end');
    } finally {
      await locker.end();
    }

    expect(transactions().size).toBe(0);
    expect(unknown().size).toBe(0);
  });

  test('when hundreds of clients from distinct addresses leave at every step (PROXY header, greeting, TLS handshake, DATA), then no per-address or per-session state remains', async () => {
    const rounds = 200;
    const leavers: ((i: number) => Promise<void>)[] = [
      // Half a PROXY header.
      async () => {
        const client = await open(t.mx.port, proxyHeader().slice(0, 12));
        await drop(client.socket);
      },
      // Before reading the greeting, over IPv6.
      async () => {
        const client = await open(t.mx.port, proxyHeader(6));
        await drop(client.socket);
      },
      // In the middle of the STARTTLS handshake.
      async () => {
        const client = await open(t.mx.port, proxyHeader());
        await client.upTo(1);
        client.socket.write('EHLO client.example.test\r\nSTARTTLS\r\n');
        await client.upTo(3);
        client.socket.removeAllListeners('data');
        const secure = tlsConnect({ socket: client.socket, rejectUnauthorized: false });
        secure.on('error', () => undefined);
        // The ClientHello is out; the server's answer is not awaited.
        await new Promise((resolve) => setImmediate(resolve));
        secure.destroy();
        await drop(client.socket);
      },
      // In the middle of a message, after RCPT TO answered.
      async (i) => {
        const client = await open(t.mx.port, proxyHeader());
        await client.upTo(1);
        client.socket.write(`EHLO client.example.test\r\nMAIL FROM:<ann@example.test>\r\nRCPT TO:<user${i}@acme.test>\r\nDATA\r\n`);
        await client.upTo(5);
        client.socket.write('Subject: cut\r\n\r\nhalf a messa');
        await drop(client.socket);
      },
      // After unknown recipients were answered.
      async (i) => {
        const client = await open(t.mx.port, proxyHeader());
        await client.upTo(1);
        client.socket.write(`EHLO client.example.test\r\nMAIL FROM:<ann@example.test>\r\nRCPT TO:<nobody${i}@nowhere.test>\r\n`);
        await client.upTo(4);
        await drop(client.socket);
      },
    ];
    // 50 rounds at a time: 250 connections open at once, each from its own address.
    for (let first = 0; first < rounds; first += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, k) => Promise.all(leavers.map((leave) => leave(first + k)))));
    }

    await until(async () => limits().open === 0, 10_000, 'the MX to close every session');
    await until(async () => t.pool.waitingCount === 0 && t.pool.idleCount === t.pool.totalCount, 10_000, 'the lookups to end');
    expect(transactions().size).toBe(0);
    expect(unknown().size).toBe(0);
  });
});
