import { once } from 'node:events';
import { createServer } from 'node:net';

/** A TCP port nothing listened on a moment ago, on 127.0.0.1: for a child process that must be told its port. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
