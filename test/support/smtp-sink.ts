import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';

/** The reply the sink gives: a code below 400 accepts, anything else rejects with this text. */
export interface SinkReply {
  code: number;
  /** Reply text after the code, e.g. '5.1.1 No such user'; sent as is. */
  message: string;
}

/**
 * Decides the reply for one recipient. `attempt` counts the RCPT TO commands seen for this
 * recipient (case-insensitive), starting at 1, so a rule can defer first and accept later.
 */
export type SinkRule = (recipient: string, attempt: number) => SinkReply;

export interface SmtpSinkOptions {
  /** Applied at MAIL FROM to the sender address ('' for the null sender); default accepts. */
  mail?: (from: string) => SinkReply;
  /** Applied at RCPT TO; default accepts everyone. */
  rcpt?: SinkRule;
  /**
   * Applied after the message is received, per recipient of the transaction; the first
   * rejection becomes the reply to DATA (SMTP has one). Default accepts.
   */
  data?: SinkRule;
  /** Advertise STARTTLS (smtp-server's built-in self-signed certificate). Default true. */
  starttls?: boolean;
  /** Speak TLS from the first byte, like port 465 (smtps://), with the same certificate. Default false. */
  implicitTls?: boolean;
  /** Require AUTH PLAIN/LOGIN with these credentials (also allowed without TLS). Default: no AUTH. */
  auth?: { user: string; pass: string };
  /** Name in the greeting. Default 'sink.test'. */
  name?: string;
  /** Advertise SIZE with this limit in octets, and refuse a larger declared SIZE= at MAIL. Default: no SIZE. */
  size?: number;
  /** Milliseconds to hold the reply to RCPT TO for this recipient (an MX that stalls). Default 0. */
  rcptDelayMs?: (recipient: string) => number;
}

/** A message the sink accepted. */
export interface SinkMessage {
  /** MAIL FROM address; '' for the null sender. */
  from: string;
  recipients: string[];
  /** Exactly the bytes received between DATA and the final dot, dot-stuffing removed. */
  raw: Buffer;
  /** The transaction ran over TLS (STARTTLS). */
  secure: boolean;
  /** The TLS server name (SNI) the client asked for, or null. */
  servername: string | null;
  /** The EHLO/HELO name the client gave. */
  heloName: string;
  /** The authenticated user, or null. */
  user: string | null;
}

const accept = (): SinkReply => ({ code: 250, message: 'OK' });

function smtpError(reply: SinkReply): Error & { responseCode: number } {
  return Object.assign(new Error(reply.message), { responseCode: reply.code });
}

/**
 * A real SMTP server on 127.0.0.1 (random port) that records what it accepts and replies per
 * recipient from rules, for tests of anything that sends mail.
 *
 * @example
 * const sink = await new SmtpSink({ rcpt: (to) => to.startsWith('nobody@')
 *   ? { code: 550, message: '5.1.1 No such user' } : { code: 250, message: 'OK' } }).start();
 * // ... send to 127.0.0.1:sink.port ...
 * const [message] = await sink.waitFor(1);
 * await sink.stop();
 */
export class SmtpSink {
  private server: SMTPServer | null = null;
  private readonly attemptsByRecipient = new Map<string, number>();
  private readonly waiters = new Set<() => void>();
  /** Every accepted message, in order of acceptance. */
  readonly messages: SinkMessage[] = [];
  /** TCP connections accepted so far. */
  connections = 0;
  /** MAIL FROM commands received so far (one per transaction attempted). */
  transactions = 0;
  port = 0;

  constructor(private readonly options: SmtpSinkOptions = {}) {}

  /** How many times `recipient` was offered at RCPT TO. */
  attempts(recipient: string): number {
    return this.attemptsByRecipient.get(recipient.toLowerCase()) ?? 0;
  }

  async start(): Promise<this> {
    const { auth, starttls = true } = this.options;
    const mailRule = this.options.mail ?? accept;
    const rcptRule = this.options.rcpt ?? accept;
    const dataRule = this.options.data ?? accept;
    const disabledCommands = [...(auth ? [] : ['AUTH']), ...(starttls ? [] : ['STARTTLS'])];
    const server = new SMTPServer({
      name: this.options.name ?? 'sink.test',
      secure: this.options.implicitTls ?? false,
      ...(this.options.size !== undefined ? { size: this.options.size } : {}),
      disabledCommands,
      authOptional: !auth,
      allowInsecureAuth: true,
      disableReverseLookup: true,
      // Left-over client connections are cut this soon after stop(), in ms.
      closeTimeout: 200,
      logger: false,
      onConnect: (_session, callback) => {
        this.connections += 1;
        callback();
      },
      onAuth: (credentials, _session, callback) => {
        if (auth && credentials.username === auth.user && credentials.password === auth.pass) {
          callback(null, { user: credentials.username });
        } else {
          callback(Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }));
        }
      },
      onMailFrom: (address: SMTPServerAddress, _session, callback) => {
        this.transactions += 1;
        const reply = mailRule(address.address);
        callback(reply.code >= 400 ? smtpError(reply) : undefined);
      },
      onRcptTo: (address: SMTPServerAddress, _session, callback) => {
        const key = address.address.toLowerCase();
        const attempt = (this.attemptsByRecipient.get(key) ?? 0) + 1;
        this.attemptsByRecipient.set(key, attempt);
        const reply = rcptRule(address.address, attempt);
        const answer = () => callback(reply.code >= 400 ? smtpError(reply) : undefined);
        const delay = this.options.rcptDelayMs?.(address.address) ?? 0;
        if (delay > 0) setTimeout(answer, delay);
        else answer();
      },
      onData: (stream: SMTPServerDataStream, session: SMTPServerSession, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const recipients = session.envelope.rcptTo.map((rcpt) => rcpt.address);
          for (const recipient of recipients) {
            const reply = dataRule(recipient, this.attempts(recipient));
            if (reply.code >= 400) return callback(smtpError(reply));
          }
          const mailFrom = session.envelope.mailFrom;
          this.messages.push({
            from: mailFrom ? mailFrom.address : '',
            recipients,
            raw: Buffer.concat(chunks),
            secure: session.secure,
            servername: session.servername || null,
            heloName: session.hostNameAppearsAs,
            user: typeof session.user === 'string' ? session.user : null,
          });
          for (const wake of this.waiters) wake();
          callback(null, 'OK: queued');
        });
      },
    });
    server.listen(0, '127.0.0.1');
    await once(server.server, 'listening');
    this.port = (server.server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /**
   * Resolves with the accepted messages once there are at least `count`; rejects after
   * `timeoutMs` saying how many arrived.
   */
  waitFor(count: number, timeoutMs = 5_000): Promise<SinkMessage[]> {
    if (this.messages.length >= count) return Promise.resolve(this.messages.slice());
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.messages.length < count) return;
        cleanup();
        resolve(this.messages.slice());
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`SmtpSink: expected ${count} message(s) within ${timeoutMs} ms, got ${this.messages.length}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
    });
  }

  /** Stops listening; connections still open are told 421 and closed shortly after. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
