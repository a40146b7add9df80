import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { ServiceCommand } from './discover-services';
import { makeTag, prefixLines } from './prefix-output';

/** How long a service gets to finish in-flight work after SIGTERM before it is killed. */
export const STOP_TIMEOUT_MS = 15_000;

interface Running {
  readonly name: string;
  readonly child: ChildProcess;
  readonly closed: Promise<void>;
  /** True once the process has exited and its output is drained. */
  done: boolean;
}

/**
 * Runs each service as its own process with prefixed output. `done` resolves once all have
 * stopped: with 0 after stop() (Ctrl-C, SIGTERM), or with the code of the first service that
 * failed on its own, after stopping the others.
 */
export class Supervisor {
  private readonly running: Running[] = [];
  private stopping = false;
  private exitCode = 0;
  private resolveDone: (exitCode: number) => void = () => {};
  /** The exit code `pnpm start` should end with, once every service has stopped. */
  readonly done = new Promise<number>((resolve) => {
    this.resolveDone = resolve;
  });

  /** `colour`: tags in colour; `format`: how each output line of a service is shown (e.g. JSON logs made readable). */
  constructor(private readonly options: { colour: boolean; format?: (line: string) => string }) {}

  get isStopping(): boolean {
    return this.stopping;
  }

  start(services: readonly ServiceCommand[]): void {
    const width = Math.max(...services.map((s) => s.name.length));
    services.forEach((service, index) => {
      const tag = makeTag(service.name, index, width, this.options.colour);
      // Each service leads its own process group: a terminal's Ctrl-C reaches only this
      // supervisor, which then signals each group once (a second signal makes a service exit
      // at once), and a `pnpm run` wrapper, which does not forward signals, is covered too.
      const env = service.env ? { ...process.env, ...service.env } : process.env;
      const child = spawn(service.command, service.args, { cwd: service.cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      if (child.stdout) prefixLines(child.stdout, process.stdout, tag, this.options.format);
      if (child.stderr) prefixLines(child.stderr, process.stderr, tag, this.options.format);
      const entry: Running = { name: service.name, child, closed: Promise.resolve(), done: false };
      const closed = new Promise<void>((resolve) => {
        const finish = (code: number | null, signal: NodeJS.Signals | null) => {
          if (entry.done) return;
          entry.done = true;
          this.exited(service.name, code, signal);
          resolve();
        };
        child.on('error', (err) => {
          process.stderr.write(`${tag} could not start: ${err.message}\n`);
          finish(1, null);
        });
        child.on('close', finish);
      });
      this.running.push(Object.assign(entry, { closed }));
    });
    // Should this process die unexpectedly, take the services with it rather than orphan them.
    process.on('exit', () => this.signalAll('SIGKILL'));
  }

  /** Sends SIGTERM to every service; SIGKILL to those still running after STOP_TIMEOUT_MS. */
  stop(exitCode = 0): void {
    if (this.stopping) return;
    this.stopping = true;
    this.exitCode = exitCode;
    this.signalAll('SIGTERM');
    const force = setTimeout(() => {
      const late = this.running.filter((r) => !r.done).map((r) => r.name);
      process.stderr.write(`${late.join(', ')} did not stop within ${STOP_TIMEOUT_MS / 1000} s; killing.\n`);
      this.kill();
    }, STOP_TIMEOUT_MS);
    void Promise.all(this.running.map((r) => r.closed)).then(() => {
      clearTimeout(force);
      this.resolveDone(this.exitCode);
    });
  }

  /** Kills every service still running, at once. */
  kill(): void {
    this.signalAll('SIGKILL');
  }

  private signalAll(signal: NodeJS.Signals): void {
    for (const { child, done } of this.running) {
      if (done || child.pid === undefined) continue;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // ESRCH: the group is already gone.
      }
    }
  }

  private exited(name: string, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.stopping) return;
    const failed = code !== 0;
    const how = signal ? `was killed by ${signal}` : `exited with code ${code ?? 'unknown'}`;
    process.stderr.write(`${name} ${how}${failed ? '; stopping the other services.' : '.'}\n`);
    if (failed) this.stop(signal ? 128 + (constants.signals[signal] ?? 0) : (code ?? 1));
    else if (this.running.every((r) => r.done)) this.stop();
  }
}
