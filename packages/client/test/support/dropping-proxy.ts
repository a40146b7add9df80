import { once } from 'node:events';
import { type AddressInfo, createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a real server that lets the first `drops` requests through and cuts
 * the connection as their response starts to come back: the server did the work, the client
 * never hears of it — a connection dropped at the worst moment.
 */
export class DroppingProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  connections = 0;
  dropped = 0;
  port = 0;

  constructor(private readonly target: { host: string; port: number }, private drops = 1) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((client) => {
      this.connections++;
      const upstream = createConnection(this.target);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.on('data', (chunk: Buffer) => {
        if (this.drops > 0) {
          this.drops--;
          this.dropped++;
          client.destroy();
          upstream.destroy();
          return;
        }
        client.write(chunk);
      });
      upstream.on('end', () => client.end());
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
