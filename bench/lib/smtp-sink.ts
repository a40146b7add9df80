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
  /** Messages whose Message-ID and recipient the sink had already accepted in this round. */
  duplicates: number;
}

export interface SmtpSinkOptions {
  /** Held before the reply to DATA (ms), as a remote MX takes its time; default none. */
  replyDelayMs?: number;
}

// The header block is read up to this many bytes for the Message-ID.
const HEAD_BYTES = 16_384;

/**
 * A local SMTP server that accepts everything: no auth, no STARTTLS, every message drained and
 * answered 250 (after `replyDelayMs`). Runs in the bench process, or in its own
 * (`slow-endpoint.ts`); counts what it receives, and the duplicates by Message-ID + recipient.
 */
export class SmtpSink {
  private round: SinkRound = { connections: 0, messages: 0, bytes: 0, duplicates: 0 };
  /** Message-ID + recipient of every message accepted this round. */
  private seen = new Set<string>();
  private waiters: { count: number; resolve: () => void }[] = [];
  private readonly server: SMTPServer;
  port = 0;

  constructor(options: SmtpSinkOptions = {}) {
    const delayMs = options.replyDelayMs ?? 0;
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
      onData: (stream, session, callback) => {
        let bytes = 0;
        let head = '';
        stream.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (head.length < HEAD_BYTES && !head.includes('\r\n\r\n')) head += chunk.toString('latin1', 0, HEAD_BYTES);
        });
        stream.on('end', () => {
          const accept = () => {
            const messageId = /^message-id:\s*(\S+)/im.exec(head)?.[1] ?? '';
            for (const rcpt of session.envelope.rcptTo) {
              const key = `${messageId} ${rcpt.address.toLowerCase()}`;
              if (messageId !== '' && this.seen.has(key)) this.round.duplicates += 1;
              this.seen.add(key);
            }
            this.round.messages += 1;
            this.round.bytes += bytes;
            this.round.lastMessageAt = performance.now();
            this.wake();
            callback();
          };
          if (delayMs > 0) setTimeout(accept, delayMs);
          else accept();
        });
      },
    });
    this.server.on('error', () => {
      // A client that drops its connection is not the sink's problem.
    });
  }

  /** Listens on `port` (0: any free one); resolves with the port. */
  async start(port = 0): Promise<number> {
    this.server.listen(port, '127.0.0.1');
    await once(this.server.server, 'listening');
    this.port = (this.server.server.address() as AddressInfo).port;
    return this.port;
  }

  /** Starts a new round: counters at zero, no first connection yet. */
  reset(): void {
    this.round = { connections: 0, messages: 0, bytes: 0, duplicates: 0 };
    this.seen = new Set();
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
