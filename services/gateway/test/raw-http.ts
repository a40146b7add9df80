import { connect } from 'node:net';
import { loadConfig } from '@mailroom/core';
import { createTestDatabase } from '../../../test/support/databases';
import { testEnv, type TestGateway } from '../../../test/support/gateway';
import { apiClient } from '../../../test/support/http';
import type { HttpTimeouts } from '../src/http/timeouts';
import { startGateway } from '../src/start-gateway';

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
export async function startGatewayWithTimeouts(label: string, timeouts: Partial<HttpTimeouts>, env: Record<string, string> = {}): Promise<TestGateway> {
  const database = await createTestDatabase(label);
  const config = loadConfig(testEnv(database, { ALLOW_SIGNUP: 'true', ...env }));
  const gateway = await startGateway(config, { host: '127.0.0.1', timeouts });
  return {
    gateway,
    api: apiClient(gateway.url),
    config,
    database,
    async close() {
      await gateway.stop();
      await database.drop();
    },
  };
}
