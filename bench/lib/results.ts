import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { REPOSITORY_ROOT } from './paths';

export const RESULTS_DIR = path.join(REPOSITORY_ROOT, 'bench', 'results');

/** The machine and code a run measured, for the results file. */
export function describeMachine(): Record<string, unknown> {
  let commit: string | undefined;
  let dirty: boolean | undefined;
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPOSITORY_ROOT, encoding: 'utf8' }).trim();
    dirty = execFileSync('git', ['status', '--porcelain'], { cwd: REPOSITORY_ROOT, encoding: 'utf8' }).trim() !== '';
  } catch {
    // Not a git checkout.
  }
  return {
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    loadAverage: loadavg().map((l) => Number(l.toFixed(2))),
    commit,
    dirty,
  };
}

/** Writes bench/results/latest.json; returns its path. */
export function writeResults(results: unknown): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, 'latest.json');
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  return file;
}
