import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

const POLL_MS = 250;

/** True when something accepts a TCP connection on the local port now. */
export function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Resolves true once something accepts TCP connections on the local port, false after `timeoutMs` or once `cancelled()`. */
export async function waitForPort(port: number, timeoutMs: number, cancelled: () => boolean): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !cancelled()) {
    if (await acceptsConnections(port)) return true;
    await sleep(POLL_MS);
  }
  return false;
}
