import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/lib/free-port';

/**
 * A real load balancer for tests: HAProxy (Debian's `haproxy` package: `apt-get install -y
 * haproxy`) in the foreground with a configuration of its own, listening on 127.0.0.1 at a free
 * port and passing every connection to one backend: in TCP mode with the PROXY protocol header
 * it is told to send (`send-proxy` for v1, `send-proxy-v2` for v2, as in front of an MX in
 * Kubernetes), or in HTTP mode appending the client to `X-Forwarded-For` (`option forwardfor`,
 * as an ingress does). Its connections to the backend come from 127.0.0.1, so a client that
 * connects from another loopback address (say 127.0.0.2) shows whether the backend read the
 * client's address from the header.
 */
export type HaproxyOptions =
  /** The backend's port on 127.0.0.1, and the PROXY header sent before each connection's bytes. */
  | { backendPort: number; mode: 'tcp'; proxyProtocol: 'v1' | 'v2' }
  | { backendPort: number; mode: 'http' };

export interface RunningHaproxy {
  port: number;
  stop(): Promise<void>;
}

const BINARIES = ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy'];
// How long HAProxy gets to open its port.
const START_TIMEOUT_MS = 10_000;

export async function startHaproxy(options: HaproxyOptions): Promise<RunningHaproxy> {
  const binary = BINARIES.find((path) => existsSync(path));
  if (!binary) throw new Error('haproxy is not installed: `apt-get install -y haproxy`');
  const dir = mkdtempSync(join(tmpdir(), 'haproxy-'));
  const port = await freePort();
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(
    config,
    [
      'global',
      '  maxconn 256',
      'defaults',
      `  mode ${options.mode}`,
      ...(options.mode === 'http' ? ['  option forwardfor'] : []),
      '  timeout connect 5s',
      '  timeout client 60s',
      '  timeout server 60s',
      'frontend front',
      `  bind 127.0.0.1:${port}`,
      '  default_backend back',
      'backend back',
      `  server back 127.0.0.1:${options.backendPort}${options.mode === 'tcp' ? ` ${options.proxyProtocol === 'v2' ? 'send-proxy-v2' : 'send-proxy'}` : ''}`,
      '',
    ].join('\n'),
  );
  // -db: stay in the foreground, logs to stderr; -f: only this configuration.
  const child = spawn(binary, ['-db', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForPort(port, child, () => output);
  } catch (err) {
    await stop();
    throw err;
  }
  return { port, stop };
}

async function waitForPort(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode}): ${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ port, host: '127.0.0.1' });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`haproxy did not listen on ${port} within ${START_TIMEOUT_MS} ms: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
