import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { loadConfig, newId, type Config } from '@mailroom/core';
import { insertEmails, type Pool } from '@mailroom/db';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { testEnv } from '../../../test/support/gateway';
import { until as untilShared } from '../../../test/support/until';
import { startInbound, type RunningInbound } from '../src/start-inbound';

export interface TestMx {
  mx: RunningInbound;
  config: Readonly<Config>;
  database: TestDatabase;
  pool: Pool;
  /** Stops the MX (if still running) and drops the database unless it was given. */
  close(): Promise<void>;
}

/** The real MX (the function main.ts calls) on a port of its own and a fresh database. */
export async function startTestMx(
  options: { env?: Record<string, string>; database?: TestDatabase; label?: string; drainTimeoutMs?: number; everyAddress?: boolean } = {},
): Promise<TestMx> {
  const database = options.database ?? (await createTestDatabase(options.label ?? 'smtp'));
  const config = loadConfig(testEnv(database, { SMTP_PORT: '0', BOUNCE_DOMAIN: 'bounces.mailroom.test', ...options.env }));
  // Loopback only, unless the test is about listening as production does (every address).
  const mx = await startInbound(config, { host: options.everyAddress ? undefined : '127.0.0.1', drainTimeoutMs: options.drainTimeoutMs });
  let stopped = false;
  const stop = mx.stop;
  mx.stop = async () => {
    if (stopped) return;
    stopped = true;
    await stop();
  };
  return {
    mx,
    config,
    database,
    pool: mx.backends.pool,
    async close() {
      await mx.stop();
      if (!options.database) await database.drop();
    },
  };
}

/** A project with the given routes; returns the project id and the route ids by match. */
export async function seedProject(pool: Pool, matches: string[]): Promise<{ projectId: string; routes: Record<string, string> }> {
  const projectId = newId('project');
  await pool.query({ text: 'INSERT INTO projects (id, name, updated_at) VALUES ($1, $2, now())', values: [projectId, 'Acme'] });
  const routes: Record<string, string> = {};
  for (const match of matches) {
    routes[match] = newId('route');
    await pool.query({ text: 'INSERT INTO routes (id, project_id, match) VALUES ($1, $2, $3)', values: [routes[match], projectId, match] });
  }
  return { projectId, routes };
}

/** A sent email with one recipient in the project; returns the recipient id (the VERP subject). */
export async function seedSentRecipient(pool: Pool, projectId: string): Promise<string> {
  const recipientId = newId('recipient');
  await insertEmails(pool, [
    {
      id: newId('email'),
      projectId,
      from: 'hello@acme.test',
      fromAddress: 'hello@acme.test',
      to: ['someone@example.test'],
      cc: [],
      bcc: [],
      replyTo: [],
      subject: 'Hello',
      html: null,
      text: 'Hello',
      headers: {},
      tags: [],
      scheduledAt: null,
      trackOpens: null,
      trackClicks: null,
      messageId: '<hello@acme.test>',
      status: 'queued',
      nextAttemptAt: new Date(),
      recipients: [{ id: recipientId, address: 'someone@example.test', kind: 'to' }],
      attachments: [],
    },
  ]);
  return recipientId;
}

export interface StoredRow {
  id: string;
  project_id: string | null;
  kind: string;
  route_ids: string[];
  feedback_recipient_id: string | null;
  mail_from: string;
  rcpt_to: string[];
  remote_address: string | null;
  helo: string | null;
  raw: Buffer;
  size: number;
  processed_at: Date | null;
}

export async function storedRows(pool: Pool): Promise<StoredRow[]> {
  const { rows } = await pool.query<StoredRow>({ text: 'SELECT * FROM received_emails ORDER BY id' });
  return rows;
}

/** A message with CRLF line endings, as every client sends it on the wire. */
export function message(subject: string, body = 'Hello there.'): Buffer {
  return Buffer.from(`From: Ann <ann@example.test>\r\nTo: support@acme.test\r\nSubject: ${subject}\r\nMessage-ID: <${subject.replace(/\W/g, '')}@example.test>\r\n\r\n${body}\r\n`);
}

/**
 * A hand-driven SMTP client on a raw socket, for what real clients will not do (bare LFs,
 * over-long lines, dropping the connection mid-DATA, PROXY headers).
 */
export class RawSmtp {
  private buffer = '';
  private waiters: (() => void)[] = [];
  closed = false;

  private constructor(private socket: Socket) {
    this.listen(socket);
  }

  private listen(socket: Socket): void {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      for (const w of this.waiters.splice(0)) w();
    });
    socket.on('close', () => {
      this.closed = true;
      for (const w of this.waiters.splice(0)) w();
    });
    socket.on('error', () => undefined);
  }

  /**
   * After the server's 220 to STARTTLS: the TLS handshake on this connection (any certificate).
   * Returns what had arrived unread before it, which RFC 3207 says must be nothing.
   */
  async startTls(): Promise<string> {
    const plain = this.socket;
    plain.removeAllListeners('data');
    plain.removeAllListeners('close');
    const unread = this.buffer;
    this.buffer = '';
    const secure = tlsConnect({ socket: plain, rejectUnauthorized: false });
    await once(secure, 'secureConnect');
    this.socket = secure;
    this.listen(secure);
    return unread;
  }

  static async open(port: number, preface?: string | Buffer): Promise<RawSmtp> {
    const socket = connect({ port, host: '127.0.0.1' });
    await once(socket, 'connect');
    if (preface) socket.write(preface);
    return new RawSmtp(socket);
  }

  /** The next complete reply (all its lines), or '' when the connection closed first. */
  async reply(timeoutMs = 5_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = /^(?:\d{3}-[^\n]*\n)*\d{3}(?: [^\n]*)?\r?\n/.exec(this.buffer);
      if (match) {
        this.buffer = this.buffer.slice(match[0].length);
        return match[0].trimEnd();
      }
      if (this.closed) return '';
      if (Date.now() > deadline) throw new Error(`no SMTP reply within ${timeoutMs} ms; got ${JSON.stringify(this.buffer)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** Sends one command line and returns its reply. */
  async command(line: string): Promise<string> {
    this.write(`${line}\r\n`);
    return this.reply();
  }

  /** Greeting, EHLO, MAIL FROM and the RCPT TOs, each expected to succeed; then DATA (354). */
  async startMessage(from: string, to: string[]): Promise<void> {
    expectCode(await this.reply(), 220);
    expectCode(await this.command('EHLO client.example.test'), 250);
    expectCode(await this.command(`MAIL FROM:<${from}>`), 250);
    for (const rcpt of to) expectCode(await this.command(`RCPT TO:<${rcpt}>`), 250);
    expectCode(await this.command('DATA'), 354);
  }

  /** Waits until the server closed the connection. */
  async closedByServer(timeoutMs = 5_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    return this.closed;
  }

  /** Ends the client's side only (a FIN, `shutdown(SHUT_WR)`): replies still arrive. */
  halfClose(): void {
    this.socket.end();
  }

  end(): void {
    this.socket.destroy();
  }
}

export function expectCode(reply: string, code: number): void {
  if (!reply.startsWith(String(code))) throw new Error(`expected ${code}, got ${JSON.stringify(reply)}`);
}

/** `until` with the MX tests' defaults: 5 s, polled every 25 ms. */
export function until(check: () => Promise<boolean>, timeoutMs = 5_000, what = 'condition'): Promise<void> {
  return untilShared(check, timeoutMs, what, 25);
}

/**
 * Runs `swaks` (Debian's package, a real SMTP client; `.ci/run` installs it) and gives its exit
 * code and output. A missing swaks fails with the command that installs it.
 */
export function swaks(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('swaks', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'ENOENT' ? new Error('swaks is not installed: `apt-get install swaks` (Debian/Ubuntu) or `brew install swaks`') : err),
    );
    child.on('close', (code) => resolve({ code, output }));
  });
}
