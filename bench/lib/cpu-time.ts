import { readFileSync } from 'node:fs';

// /proc/<pid>/stat counts CPU time in clock ticks of this many per second (USER_HZ, 100 on Linux).
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat; undefined where
 * there is no /proc (not Linux) or the process is gone. On a shared machine the CPU a process
 * spends per message says more than its rate, which depends on what else runs.
 */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // The fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds spent by a changing set of processes (a pool's PostgreSQL backends) between
 * `start()` and `stop()`: those that began in between count from zero; any that ended in
 * between are missed.
 */
export class CpuOfProcesses {
  private before = new Map<number, number>();

  constructor(private readonly list: () => Promise<number[]>) {}

  async start(): Promise<void> {
    this.before = new Map((await this.list()).flatMap((pid) => {
      const s = cpuSeconds(pid);
      return s === undefined ? [] : [[pid, s] as const];
    }));
  }

  /** Seconds used since start(), or undefined when there was no process to read. */
  async stop(): Promise<number | undefined> {
    let total: number | undefined;
    for (const pid of await this.list()) {
      const s = cpuSeconds(pid);
      if (s !== undefined) total = (total ?? 0) + s - (this.before.get(pid) ?? 0);
    }
    return total;
  }
}
