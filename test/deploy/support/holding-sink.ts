import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/**
 * An SMTP server on 127.0.0.1 that reads each message whole and then holds its reply to DATA
 * until `release()`: a transaction stays in flight for as long as a test needs.
 */
export class HoldingSink {
  /** Messages read in full, answered or not. */
  received = 0;
  /** Messages answered 250. */
  accepted = 0;
  port = 0;
  private holding = true;
  private readonly held: (() => void)[] = [];
  private readonly server = new SMTPServer({
    disabledCommands: ['AUTH', 'STARTTLS'],
    authOptional: true,
    disableReverseLookup: true,
    logger: false,
    closeTimeout: 200,
    onData: (stream, _session, callback) => {
      stream.resume();
      stream.on('end', () => {
        this.received += 1;
        const reply = () => {
          this.accepted += 1;
          callback();
        };
        if (this.holding) this.held.push(reply);
        else reply();
      });
    },
  });

  async start(): Promise<this> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server.server, 'listening');
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  /** Answers 250 to every message held so far. */
  release(): void {
    for (const reply of this.held.splice(0)) reply();
  }

  /** Answers every message held so far and every later one at once. */
  stopHolding(): void {
    this.holding = false;
    this.release();
  }

  stop(): Promise<void> {
    this.stopHolding();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
