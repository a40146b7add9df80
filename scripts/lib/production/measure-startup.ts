/**
 * Start-up time and idle memory of each service, run from source with tsx (as `pnpm start` does)
 * and from the production tree (as the image does), alternating, several times each:
 *
 *   pnpm build:production /tmp/mailroom-tree
 *   node --import tsx scripts/lib/production/measure-startup.ts /tmp/mailroom-tree [runs]
 *
 * Start-up is from spawn until /readyz answers 200 (PostgreSQL and Redis connected); idle RSS is
 * the process's resident memory 3 s later. Uses DATABASE_URL and REDIS_URL (a migrated database).
 * Prints a Markdown table of medians.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '@mailroom/core';
import { freePort } from '../free-port';
import { discoverServiceNames } from './entries';

const ROOT = path.resolve(__dirname, '../../..');
const IDLE_MS = 3_000;
const SECRET_KEY = 'measure-startup-secret-key-0123456789abcdef';

/** CPU time (user + system) the process has used, in ms: unlike wall time, it hardly moves when other processes share the cores. */
function cpuMs(pid: number): number {
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  const ticksPerSecond = 100;
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

function rssBytes(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) * 1024;
}

interface Sample {
  startMs: number;
  cpuMs: number;
  rss: number;
}

async function measureOnce(command: string, args: string[], cwd: string): Promise<Sample> {
  const config = loadConfig();
  const ports = { API_PORT: await freePort(), TRACKING_PORT: await freePort(), SMTP_PORT: await freePort(), OPS_PORT: await freePort() };
  const env = {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATABASE_URL: config.databaseUrl,
    REDIS_URL: config.redisUrl,
    QUEUE_PREFIX: `measure-${process.pid}`,
    SECRET_KEY,
    DOMAIN_MX_HOST: 'mx.mailroom.test',
    DOMAIN_SPF_MECHANISMS: 'ip4:127.0.0.1',
    ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
  };
  const started = performance.now();
  const child: ChildProcess = spawn(command, args, { cwd, env, stdio: 'ignore' });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
      for (const port of [ports.OPS_PORT, ports.API_PORT, ports.TRACKING_PORT]) {
        const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
        if (res?.status === 200) {
          const startMs = performance.now() - started;
          const cpu = cpuMs(child.pid as number);
          await sleep(IDLE_MS);
          return { startMs, cpuMs: cpu, rss: rssBytes(child.pid as number) };
        }
      }
      await sleep(10);
    }
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function main(tree: string, runs: number): Promise<void> {
  const rows: string[] = [];
  for (const service of discoverServiceNames(ROOT)) {
    const tsx: Sample[] = [];
    const built: Sample[] = [];
    for (let i = 0; i < runs; i++) {
      tsx.push(await measureOnce(process.execPath, ['--import', require.resolve('tsx'), 'src/main.ts'], path.join(ROOT, 'services', service)));
      built.push(await measureOnce(path.join(tree, 'bin/mailroom'), [service], tree));
    }
    const ms = (list: Sample[]) => Math.round(median(list.map((r) => r.startMs)));
    const cpu = (list: Sample[]) => Math.round(median(list.map((r) => r.cpuMs)));
    const mb = (list: Sample[]) => Math.round(median(list.map((r) => r.rss)) / 2 ** 20);
    rows.push(
      `| ${service} | ${cpu(tsx)} ms | ${cpu(built)} ms | ${ms(tsx)} ms | ${ms(built)} ms | ${mb(tsx)} MiB | ${mb(built)} MiB |`,
    );
    console.error(`${service} done`);
  }
  const header = '| service | CPU to ready, tsx | CPU to ready, production | wall to ready, tsx | wall to ready, production | idle RSS, tsx | idle RSS, production |';
  console.log(`${header}\n|---|---|---|---|---|---|---|\n${rows.join('\n')}`);
}

const [tree, runs = '5'] = process.argv.slice(2);
if (!tree) {
  console.error('Usage: node --import tsx scripts/lib/production/measure-startup.ts <production tree> [runs]');
  process.exit(64);
}
main(path.resolve(tree), Number(runs)).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
