import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPOSITORY_ROOT, TSX_LOADER } from './paths';
import { acceptsConnections } from '../../scripts/lib/wait-for-port';

export { freePort } from '../../scripts/lib/free-port';

/** How much of a child's output is kept for error messages. */
const TAIL_BYTES = 8_000;
/** After SIGTERM, a child gets this long to finish before SIGKILL. */
const STOP_TIMEOUT_MS = 15_000;

export interface Child {
  readonly name: string;
  readonly process: ChildProcess;
  /** When spawn() was called (performance.now()). */
  readonly startedAt: number;
  /** Resolves with the exit code (or signal) once the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** True once the process has exited. */
  readonly hasExited: () => boolean;
  /** The last few KB of stdout and stderr, interleaved. */
  readonly output: () => string;
  /** SIGTERM, then SIGKILL after a timeout; resolves once it has exited. */
  stop(timeoutMs?: number): Promise<void>;
}

const running = new Set<Child>();

export interface SpawnOptions {
  /** The TypeScript or JavaScript file to run, relative to the repository root. */
  script: string;
  args?: string[];
  env?: Record<string, string>;
  /** Extra node flags after tsx's loader, e.g. --cpu-prof or another --import. */
  nodeFlags?: string[];
  /** Echo the child's output with a [name] prefix (BENCH_VERBOSE=1). */
  echo?: boolean;
  /** Open an IPC channel (child.process.on('message')); only for the bench's own helpers. */
  ipc?: boolean;
}

/**
 * Runs `node --import tsx <script>` from the repository root. Each child leads its own process
 * group, so a terminal's Ctrl-C reaches only the bench, which then stops each child once.
 */
export function spawnTs(name: string, options: SpawnOptions): Child {
  const child = spawn(process.execPath, ['--import', TSX_LOADER, ...(options.nodeFlags ?? []), options.script, ...(options.args ?? [])], {
    cwd: REPOSITORY_ROOT,
    env: { ...process.env, BENCH_CHILD_NAME: name, ...options.env },
    stdio: options.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const startedAt = performance.now();
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-TAIL_BYTES);
    if (options.echo) process.stderr.write(chunk.toString('utf8').replace(/^(?=.)/gm, `[${name}] `));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('error', (err) => {
      keep(Buffer.from(`spawn failed: ${err.message}\n`));
      done = true;
      resolve({ code: null, signal: null });
    });
    child.once('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
  });
  const handle: Child = {
    name,
    process: child,
    startedAt,
    exited,
    hasExited: () => done,
    output: () => tail.trim(),
    async stop(timeoutMs = STOP_TIMEOUT_MS) {
      if (!done) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
        await exited;
        clearTimeout(timer);
      }
      running.delete(handle);
    },
  };
  running.add(handle);
  return handle;
}

/** Stops every child still running (SIGTERM, then SIGKILL). */
export async function stopAll(timeoutMs = STOP_TIMEOUT_MS): Promise<void> {
  await Promise.all([...running].map((c) => c.stop(timeoutMs)));
}

/** Last resort for process 'exit': no waiting is possible there. */
export function killAllNow(): void {
  for (const c of running) if (!c.hasExited()) c.process.kill('SIGKILL');
}

/** Resolves once the child accepts TCP connections on `port`; rejects with its output if it exits first or takes too long. */
export async function waitForPort(child: Child, port: number, timeoutMs = 60_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (child.hasExited()) {
      const { code, signal } = await child.exited;
      throw new Error(`${child.name} exited (${signal ?? `code ${code}`}) before listening on ${port}:\n${child.output() || '(no output)'}`);
    }
    if (await acceptsConnections(port)) return performance.now() - child.startedAt;
    await sleep(50);
  }
  throw new Error(`${child.name} did not listen on ${port} within ${timeoutMs / 1000} s:\n${child.output() || '(no output)'}`);
}
