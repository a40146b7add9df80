import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the receiver saw since the last reset(). Times are performance.now(). */
export interface ReceiverRound {
  requests: number;
  bytes: number;
  firstRequestAt?: number;
  lastRequestAt?: number;
  /** Requests whose webhook-id and endpoint (URL) the receiver had already answered in this round. */
  duplicates: number;
}

export interface WebhookReceiverOptions {
  /** Held before the answer (ms), as a real endpoint takes its time; default none. */
  delayMs?: number;
}

/**
 * The webhooks scenario's endpoint: a node:http server in the bench process (or in its own,
 * `slow-endpoint.ts`) that reads each body and answers 200 "ok" (after `delayMs`). Both the
 * baseline and the dispatcher post to it. Counts duplicates by webhook-id + endpoint URL.
 */
export class WebhookReceiver {
  private round: ReceiverRound = { requests: 0, bytes: 0, duplicates: 0 };
  /** webhook-id + URL of every request answered this round. */
  private seen = new Set<string>();
  private readonly server: Server;
  port = 0;

  constructor(options: WebhookReceiverOptions = {}) {
    const delayMs = options.delayMs ?? 0;
    this.server = createServer((req, res) => {
      this.round.firstRequestAt ??= performance.now();
      let bytes = 0;
      req.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      req.on('end', () => {
        const answer = () => {
          const webhookId = req.headers['webhook-id'];
          if (typeof webhookId === 'string') {
            const key = `${webhookId} ${req.url ?? ''}`;
            if (this.seen.has(key)) this.round.duplicates += 1;
            this.seen.add(key);
          }
          this.round.requests += 1;
          this.round.bytes += bytes;
          this.round.lastRequestAt = performance.now();
          res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
          res.end('ok');
        };
        if (delayMs > 0) setTimeout(answer, delayMs);
        else answer();
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
    this.round = { requests: 0, bytes: 0, duplicates: 0 };
    this.seen = new Set();
  }

  /** Listens on `port` (0: any free one). */
  async start(port = 0): Promise<void> {
    this.server.listen(port, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
