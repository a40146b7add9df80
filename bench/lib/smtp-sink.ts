import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** What the sink saw since the last reset(). Times are performance.now(). */
export interface SinkRound {
  connections: number;
  messages: number;
  bytes: number;
  firstConnectionAt?: number;
  lastMessageAt?: number;
}

/**
 * A local SMTP server that accepts everything: no auth, no STARTTLS, every message drained and
 * answered 250. Runs in the bench process; counts what it receives.
 */
export class SmtpSink {
  private round: SinkRound = { connections: 0, messages: 0, bytes: 0 };
  private waiters: { count: number; resolve: () => void }[] = [];
  private readonly server: SMTPServer;
  port = 0;

  constructor() {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      // The senders are local and many: no per-connection limits beyond smtp-server's defaults.
      maxClients: 1_000,
      onConnect: (_session, callback) => {
        this.round.connections += 1;
        this.round.firstConnectionAt ??= performance.now();
        callback();
      },
      onData: (stream, _session, callback) => {
        let bytes = 0;
        stream.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        stream.on('end', () => {
          this.round.messages += 1;
          this.round.bytes += bytes;
          this.round.lastMessageAt = performance.now();
          this.wake();
          callback();
        });
      },
    });
    this.server.on('error', () => {
      // A client that drops its connection is not the sink's problem.
    });
  }

  async start(): Promise<number> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server.server, 'listening');
    this.port = (this.server.server.address() as AddressInfo).port;
    return this.port;
  }

  /** Starts a new round: counters at zero, no first connection yet. */
  reset(): void {
    this.round = { connections: 0, messages: 0, bytes: 0 };
  }

  get current(): Readonly<SinkRound> {
    return this.round;
  }

  /** Resolves once this round has received `count` messages. */
  waitForMessages(count: number): Promise<void> {
    if (this.round.messages >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  private wake(): void {
    const ready = this.waiters.filter((w) => this.round.messages >= w.count);
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((w) => this.round.messages < w.count);
    for (const w of ready) w.resolve();
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
