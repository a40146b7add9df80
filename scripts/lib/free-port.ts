import { once } from 'node:events';
import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago (the OS's pick for port 0). */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
