import { once } from 'node:events';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * What a test sees of one proxied connection: each chunk from the client (`toServer`) and from
 * the server (`toClient`), before it is passed on. Returning false drops the chunk; `cut()` ends
 * the connection both ways.
 */
export interface ProxyTap {
  toServer?(chunk: Buffer, cut: () => void): boolean | undefined;
  toClient?(chunk: Buffer, cut: () => void): boolean | undefined;
}

/**
 * A TCP proxy in front of a real server, so a test can cut one service off (as if it were down)
 * without touching the server other tests share. With `dropResponses: n`, the first n
 * connections are cut as their response starts to come back: the server did the work, the
 * client never hears of it. With `tap`, a fresh tap (ProxyTap) watches each connection.
 */
export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;
  /** Connections accepted, and responses dropped. */
  connections = 0;
  dropped = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
    private readonly options: { dropResponses?: number; tap?: () => ProxyTap } = {},
  ) {}

  async start(): Promise<this> {
    const server = createServer((client) => {
      this.connections++;
      const upstream = createConnection({ host: this.targetHost, port: this.targetPort });
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      const tap = this.options.tap?.();
      if (tap) {
        const cut = () => {
          client.destroy();
          upstream.destroy();
        };
        client.on('data', (chunk: Buffer) => tap.toServer?.(chunk, cut) !== false && upstream.write(chunk));
        upstream.on('data', (chunk: Buffer) => tap.toClient?.(chunk, cut) !== false && client.write(chunk));
        return;
      }
      if (this.connections > (this.options.dropResponses ?? 0)) {
        client.pipe(upstream).pipe(client);
        return;
      }
      client.pipe(upstream);
      upstream.once('data', () => {
        this.dropped++;
        client.destroy();
        upstream.destroy();
      });
    });
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /** Drops every connection and refuses new ones. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
