import { execFileSync } from 'node:child_process';

/**
 * The local ports of the process `pid`'s established TCP connections to `remotePort` (from
 * `ss`): how a test finds one process's PostgreSQL backends or Redis clients among everyone's.
 */
export function localPortsOf(pid: number, remotePort: number): Set<number> {
  const out = execFileSync('ss', ['-tnpH', 'state', 'established', `dport = :${remotePort}`], { encoding: 'utf8' });
  const ports = new Set<number>();
  for (const line of out.split('\n')) {
    if (!line.includes(`pid=${pid},`)) continue;
    const local = /^\s*\S+\s+\S+\s+(\S+):(\d+)\s/.exec(line);
    if (local) ports.add(Number(local[2]));
  }
  return ports;
}
