import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the receiver saw since the last reset(). Times are performance.now(). */
export interface ReceiverRound {
  requests: number;
  bytes: number;
  firstRequestAt?: number;
  lastRequestAt?: number;
}

/**
 * The webhooks scenario's endpoint: a node:http server in the bench process that reads each
 * body and answers 200 "ok". Both the baseline and the dispatcher post to it.
 */
export class WebhookReceiver {
  private round: ReceiverRound = { requests: 0, bytes: 0 };
  private readonly server: Server;
  port = 0;

  constructor() {
    this.server = createServer((req, res) => {
      this.round.firstRequestAt ??= performance.now();
      let bytes = 0;
      req.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      req.on('end', () => {
        this.round.requests += 1;
        this.round.bytes += bytes;
        this.round.lastRequestAt = performance.now();
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
        res.end('ok');
      });
    });
    this.server.keepAliveTimeout = 30_000;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  get current(): ReceiverRound {
    return { ...this.round };
  }

  reset(): void {
    this.round = { requests: 0, bytes: 0 };
  }

  async start(): Promise<void> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
