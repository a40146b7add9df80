import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../support/free-port';

const run = promisify(execFile);

/** The newest PostgreSQL installed the Debian way (`/usr/lib/postgresql/<major>/bin`). */
function postgresBin(tool: string): string {
  const majors = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  if (!majors[0]) throw new Error('no PostgreSQL under /usr/lib/postgresql');
  return join('/usr/lib/postgresql', majors[0], 'bin', tool);
}

/** initdb and the server refuse to run as root: as root, run them as the postgres user. */
function asPostgres(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

/**
 * A PostgreSQL cluster of its own in a temporary directory, on a free port, that a test may stop
 * and crash at will without disturbing the machine's shared server.
 */
export class PrivatePostgres {
  private constructor(readonly dir: string, readonly port: number) {}

  static async create(): Promise<PrivatePostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-chaos-pg-'));
    if (process.getuid?.() === 0) chownSync(dir, Number((await run('id', ['-u', 'postgres'])).stdout), Number((await run('id', ['-g', 'postgres'])).stdout));
    const [command, args] = asPostgres(postgresBin('initdb'), ['-D', join(dir, 'data'), '-U', 'postgres', '-A', 'trust', '--no-sync']);
    await run(command, args);
    return new PrivatePostgres(dir, await freePort());
  }

  url(database: string): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /**
   * Starts the server and waits until it accepts connections. fsync is off (the machine does
   * not crash, only the server), so an immediate stop still keeps every committed transaction.
   */
  async start(): Promise<void> {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
    await this.pgCtl(['start', '-w', '-t', '30', '-l', join(this.dir, 'server.log'), '-o', options]);
  }

  /** `fast`: clients are disconnected and the server shuts down cleanly; `immediate`: a crash, recovered at the next start. */
  async stop(mode: 'fast' | 'immediate'): Promise<void> {
    await this.pgCtl(['stop', '-w', '-m', mode]);
  }

  /**
   * SIGSTOP to the postmaster and every backend: connections stay open and statements sent are
   * never answered, as with a server that hangs (a stalled disk, a frozen VM). `thaw` resumes them.
   */
  freeze(): void {
    this.signalAll('SIGSTOP');
  }

  thaw(): void {
    this.signalAll('SIGCONT');
  }

  async remove(): Promise<void> {
    this.thaw();
    await this.stop('immediate').catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** The postmaster first, so it forks no new backend meanwhile, then its children. */
  private signalAll(signal: 'SIGSTOP' | 'SIGCONT'): void {
    let postmaster: number;
    try {
      postmaster = Number(readFileSync(join(this.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    } catch {
      return;
    }
    const children = readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .filter((pid) => {
        try {
          // Field 4 of /proc/<pid>/stat, after the parenthesised command name, is the parent's pid.
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
        } catch {
          return false;
        }
      })
      .map(Number);
    for (const pid of [postmaster, ...children]) {
      try {
        process.kill(pid, signal);
      } catch {
        // Exited meanwhile.
      }
    }
  }

  private async pgCtl(args: string[]): Promise<void> {
    const [command, full] = asPostgres(postgresBin('pg_ctl'), ['-D', join(this.dir, 'data'), ...args]);
    await run(command, full);
  }
}

/** A Redis server of its own on a free port; restarted empty, or from its append-only file. */
export class PrivateRedis {
  private child: ChildProcess | null = null;

  private constructor(readonly dir: string, readonly port: number) {}

  static async create(): Promise<PrivateRedis> {
    return new PrivateRedis(mkdtempSync(join(tmpdir(), 'mailroom-chaos-redis-')), await freePort());
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  urlWithPassword(password: string): string {
    return `redis://:${encodeURIComponent(password)}@127.0.0.1:${this.port}`;
  }

  /**
   * With `appendOnly`, every write is in the AOF before it is answered (appendfsync always); with
   * `password`, clients must AUTH with it (then connect with `urlWithPassword`).
   */
  async start(appendOnly: boolean, options: { password?: string } = {}): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', '', '--appendonly', appendOnly ? 'yes' : 'no'];
    if (appendOnly) args.push('--appendfsync', 'always');
    if (options.password) args.push('--requirepass', options.password);
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    let output = '';
    child.stdout?.setEncoding('utf8').on('data', (s: string) => (output += s));
    const deadline = Date.now() + 10_000;
    while (!output.includes('Ready to accept connections')) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`redis-server did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** SIGSTOP: connections stay open and commands are never answered, until `thaw` (SIGCONT). */
  freeze(): void {
    this.child?.kill('SIGSTOP');
  }

  thaw(): void {
    this.child?.kill('SIGCONT');
  }

  /** SIGKILL: what was only in memory is gone; with the AOF, what it holds comes back at the next start. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }

  async remove(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
