import { connect } from 'node:net';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway';
import type { HttpTimeouts } from '../src/http/timeouts';

/** What came back on a raw connection, and when the server closed it. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from connecting until the server closed the connection (or we gave up). */
  closedAfterMs: number;
  closed: boolean;
}

/**
 * Writes `chunks` to a fresh TCP connection (with `pauseMs` between them) and reads until
 * the server closes it or `waitMs` pass: for requests no HTTP client would send.
 */
export function rawRequest(url: string, chunks: (string | Buffer)[], options: { waitMs?: number; pauseMs?: number } = {}): Promise<RawResponse> {
  const { port, hostname } = new URL(url);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const received: Buffer[] = [];
    let closed = false;
    const finish = () => {
      clearTimeout(giveUp);
      socket.destroy();
      resolve(parseResponse(Buffer.concat(received).toString('utf8'), Date.now() - started, closed));
    };
    const giveUp = setTimeout(finish, options.waitMs ?? 5_000);
    socket.on('data', (data) => received.push(data));
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.on('error', (err) => ((err as { code?: string }).code === 'ECONNRESET' ? undefined : reject(err)));
    socket.on('connect', async () => {
      for (const [i, chunk] of chunks.entries()) {
        if (i > 0 && options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
        if (socket.destroyed) return;
        socket.write(chunk);
      }
    });
  });
}

function parseResponse(text: string, closedAfterMs: number, closed: boolean): RawResponse {
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body: rest.join('\r\n\r\n'), closedAfterMs, closed };
}

/** A real gateway, as startTestGateway starts one, with its HTTP timeouts shortened. */
export function startGatewayWithTimeouts(label: string, timeouts: Partial<HttpTimeouts>, env: Record<string, string> = {}): Promise<TestGateway> {
  return startTestGateway({ label, timeouts, env: { ALLOW_SIGNUP: 'true', ...env } });
}
