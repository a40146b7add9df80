import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

/** A Mailroom service running as its own process, exactly as `pnpm start:<name>` runs it. */
export class ServiceProcess {
  readonly output: string[] = [];
  private readonly exited: Promise<number | null>;

  private constructor(readonly child: ChildProcess) {
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => this.output.push(...chunk.split('\n').filter(Boolean)));
    }
    this.exited = once(child, 'exit').then(([code]) => code as number | null);
  }

  /** Starts `services/<name>/src/main.ts` with `env` and waits for a log line containing `ready`. */
  static async start(name: string, env: Record<string, string>, ready: string, timeoutMs = 20_000): Promise<ServiceProcess> {
    const child = spawn(process.execPath, ['--import', require.resolve('tsx'), join(ROOT, 'services', name, 'src/main.ts')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const service = new ServiceProcess(child);
    const deadline = Date.now() + timeoutMs;
    while (!service.output.some((line) => line.includes(ready))) {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`${name} did not become ready:\n${service.output.join('\n')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return service;
  }

  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Resolves with the exit code once the process has exited. */
  waitForExit(): Promise<number | null> {
    return this.exited;
  }

  /** Peak resident memory so far, in bytes (Linux VmHWM). */
  peakRssBytes(): number {
    const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
    const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
    return Number(kb) * 1024;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    await this.exited;
  }
}

/** Each of the five services, with the log line that says it is ready. */
export const SERVICE_READY_LINES = {
  gateway: 'gateway listening',
  sender: 'sender started',
  'inbound-smtp': 'inbound SMTP started',
  tracking: 'tracking started',
  'webhook-dispatcher': 'webhook dispatcher started',
} as const;
export type ServiceName = keyof typeof SERVICE_READY_LINES;

/**
 * All five services as processes on one environment, each with its own OPS_PORT where `opsPorts`
 * gives one. One at a time: five tsx compilations at once on two cores take longer than in a row.
 */
export async function startAllServices(env: Record<string, string>, opsPorts: Partial<Record<ServiceName, number>>): Promise<Map<ServiceName, ServiceProcess>> {
  const services = new Map<ServiceName, ServiceProcess>();
  for (const [name, ready] of Object.entries(SERVICE_READY_LINES) as [ServiceName, string][]) {
    const port = opsPorts[name];
    services.set(name, await ServiceProcess.start(name, port ? { ...env, OPS_PORT: String(port) } : env, ready, 60_000));
  }
  return services;
}
