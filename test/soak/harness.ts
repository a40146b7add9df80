// Soak harness: runs a service as a real process with the probe preload, and samples it from outside.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withAdminClient } from '../support/databases';
import { localPortsOf } from '../support/local-ports';

const ROOT = join(__dirname, '../..');
export const SOAK_DIR = process.env.SOAK_DIR ?? '/tmp/mailroom-soak';
mkdirSync(SOAK_DIR, { recursive: true });

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class Probed {
  readonly output: string[] = [];
  constructor(readonly name: string, readonly child: ChildProcess) {
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => this.output.push(...chunk.split('\n').filter(Boolean)));
    }
  }
  get pid(): number {
    return this.child.pid as number;
  }

  static async start(name: string, env: Record<string, string>, ready: string): Promise<Probed> {
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--require', join(__dirname, 'probe-preload.cjs'), '--import', require.resolve('tsx'), join(ROOT, 'services', name, 'src/main.ts')],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', SOAK_DIR, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const p = new Probed(name, child);
    const deadline = Date.now() + 60_000;
    while (!p.output.some((l) => l.includes(ready))) {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`${name} did not start:\n${p.output.join('\n')}`);
      }
      await sleep(100);
    }
    return p;
  }

  /** Forces GC in the process and reads heap, RSS, handles, fds, PG and Redis sockets. */
  async sample(snapshotLabel?: string): Promise<Record<string, number | string>> {
    const file = join(SOAK_DIR, `${this.pid}.json`);
    rmSync(file, { force: true });
    if (snapshotLabel) writeFileSync(join(SOAK_DIR, `${this.pid}.snapshot`), snapshotLabel);
    this.child.kill('SIGUSR2');
    const deadline = Date.now() + 120_000;
    while (!existsSync(file)) {
      if (Date.now() > deadline) throw new Error('no sample');
      await sleep(100);
    }
    const s = JSON.parse(readFileSync(file, 'utf8')) as { heapUsed: number; rss: number; external: number; resources: Record<string, number>; snapshot?: string };
    const fds = readdirSync(`/proc/${this.pid}/fd`).length;
    const ss = execFileSync('ss', ['-tanpH'], { encoding: 'utf8' }).split('\n').filter((l) => l.includes(`pid=${this.pid},`));
    const to = (port: number) => ss.filter((l) => new RegExp(`\\s127\\.0\\.0\\.1:${port}\\s`).test(l) && l.startsWith('ESTAB')).length;
    const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const warnings = this.output.filter((l) => /MaxListenersExceeded|Warning/.test(l)).length;
    const out: Record<string, number | string> = {
      heapMB: +(s.heapUsed / 1048576).toFixed(2),
      rssMB: +(s.rss / 1048576).toFixed(1),
      extMB: +(s.external / 1048576).toFixed(2),
      fds,
      tcp: ss.length,
      pg: to(5432),
      redis: to(6379),
      threads: Number(/Threads:\s+(\d+)/.exec(status)?.[1]),
      warnings,
      res: Object.entries(s.resources).map(([k, v]) => `${k}:${v}`).join(' '),
    };
    if (s.snapshot) out.snapshot = s.snapshot;
    return out;
  }

  /** Prints how many warning and error lines the service logged, and the last `lines` of them. */
  printProblems(lines = 6): void {
    const problems = this.output.filter((l) => /"level":(40|50|60)|Warning/.test(l));
    console.log(`${this.name} warn/error lines: ${problems.length}`);
    if (problems.length > 0) console.log(problems.slice(-lines).join('\n').slice(0, 3000));
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    await once(this.child, 'exit');
    clearTimeout(timer);
  }
}

/**
 * Runs `phase` N times, idles (IDLE_MS, else `defaultIdleMs`), samples after each, with heap
 * snapshots after the phases SNAPSHOTS lists (e.g. `1,4`); prints a table.
 */
export async function phases(
  label: string,
  services: Probed[],
  count: number,
  phase: (n: number) => Promise<string | undefined>,
  defaultIdleMs = 30_000,
): Promise<void> {
  const idleMs = Number(process.env.IDLE_MS ?? defaultIdleMs);
  const snapshotPhases = (process.env.SNAPSHOTS ?? '').split(',').filter(Boolean).map(Number);
  const rows: string[] = [];
  const baseline = await Promise.all(services.map((s) => s.sample()));
  services.forEach((s, i) => {
    rows.push(`${s.name}\tphase0\t${JSON.stringify(baseline[i])}`);
  });
  console.log(rows.join('\n'));
  for (let n = 1; n <= count; n++) {
    const started = Date.now();
    const note = await phase(n);
    const took = Date.now() - started;
    await sleep(idleMs);
    const samples = await Promise.all(services.map((s) => s.sample(snapshotPhases.includes(n) ? `phase${n}` : undefined)));
    services.forEach((s, i) => {
      const row = `${s.name}\tphase${n}\t${took}ms\t${note ?? ''}\t${JSON.stringify(samples[i])}`;
      rows.push(row);
      console.log(row);
    });
  }
  writeFileSync(join(SOAK_DIR, `${label}.tsv`), rows.join('\n') + '\n');
}

/** Terminates the PostgreSQL backends serving the process `pid` (matched by its local ports). */
export async function killPgOf(pid: number): Promise<number> {
  const ports = localPortsOf(pid, 5432);
  if (ports.size === 0) return 0;
  return withAdminClient(async (client) => {
    const { rows } = await client.query<{ killed: boolean }>({
      text: 'SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE client_port = ANY($1::int[])',
      values: [[...ports]],
    });
    return rows.filter((r) => r.killed).length;
  });
}
