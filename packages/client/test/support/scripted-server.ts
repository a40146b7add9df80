import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server whose answers a test scripts, one per request, for the failures a healthy
 * gateway cannot be made to give on demand (a 503, silence, a reset). It counts what arrives.
 */
export class ScriptedServer {
  readonly requests: { method: string; url: string; headers: IncomingMessage['headers'] }[] = [];
  private server: Server | null = null;

  constructor(private readonly answer: (n: number, req: IncomingMessage, res: ServerResponse) => void) {}

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      req.resume();
      req.on('end', () => this.answer(this.requests.length, req, res));
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** Answers Mailroom's error JSON with its status, and any extra headers. */
export function answerError(res: ServerResponse, statusCode: number, name: string, headers: Record<string, string> = {}): void {
  res.writeHead(statusCode, { 'content-type': 'application/json', 'x-request-id': `req-${statusCode}`, ...headers });
  res.end(JSON.stringify({ name, message: `scripted ${name}`, statusCode }));
}

export function answerJson(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req-ok' });
  res.end(JSON.stringify(body));
}
