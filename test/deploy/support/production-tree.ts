import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../../scripts/lib/free-port';
import { serviceOf } from './check-manifests';
import { containerEnv, type KubeObject } from './kubernetes';

const ROOT = join(__dirname, '../../..');

/**
 * Builds the production tree into `outDir` exactly as the Dockerfile does: its `RUN pnpm
 * build:production /app` runs this same script (the package.json script, without pnpm's wrapper).
 */
export function buildProductionTree(outDir: string): void {
  const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['build:production'];
  if (script !== 'node --import tsx scripts/build-production.ts') throw new Error(`build:production is now \`${script}\`; update this helper to match`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-production.ts', outDir], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`the production build failed:\n${result.stdout}\n${result.stderr}`);
}

/** Runs `<tree>/bin/mailroom <args>` (the image's ENTRYPOINT) to completion. */
export function runEntrypoint(tree: string, args: string[], env: Record<string, string>) {
  return spawnSync(join(tree, 'bin/mailroom'), args, { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
}

/** What the base manifests say about one service's pod, with every port moved to a free one. */
export interface PodPlan {
  env: Record<string, string>;
  graceSeconds: number;
  preStopSeconds: number;
  /** Probe name → URL on this machine. */
  probes: Record<string, string>;
}

/**
 * The environment a service's Deployment gives it (its ConfigMap and env), each `*_PORT` moved
 * to a free local port, and its probes' URLs at the moved ports: starting the service with this
 * and asking these URLs is what the kubelet does.
 */
export async function podPlan(objects: readonly KubeObject[], service: string): Promise<PodPlan> {
  const deployment = objects.find((o) => o.kind === 'Deployment' && serviceOf(o) === service);
  if (!deployment) throw new Error(`no Deployment runs ${service}`);
  const env = containerEnv(objects, deployment);
  const moved = new Map<number, number>();
  for (const [name, value] of Object.entries(env)) {
    if (!name.endsWith('_PORT')) continue;
    // A port just released may be handed out again: each variable gets one no other has.
    let port = await freePort();
    while ([...moved.values()].includes(port)) port = await freePort();
    moved.set(Number(value), port);
    env[name] = String(port);
  }
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];
  const probes: Record<string, string> = {};
  for (const probe of ['livenessProbe', 'readinessProbe']) {
    const get = container[probe].httpGet;
    const declared = container.ports.find((p: { name?: string; containerPort: number }) => p.name === get.port || p.containerPort === get.port);
    probes[probe] = `http://127.0.0.1:${moved.get(declared.containerPort)}${get.path}`;
  }
  return {
    env,
    graceSeconds: pod.terminationGracePeriodSeconds,
    preStopSeconds: Number(container.lifecycle.preStop.exec.command[1]),
    probes,
  };
}

/** A service started from the production tree with `bin/mailroom <service>`, as its container runs it. */
export class TreeProcess {
  readonly output: string[] = [];
  private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly child: ChildProcess;

  constructor(tree: string, service: string, env: Record<string, string>) {
    this.child = spawn(join(tree, 'bin/mailroom'), [service], {
      cwd: tree,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [this.child.stdout, this.child.stderr]) {
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => this.output.push(...chunk.split('\n').filter(Boolean)));
    }
    this.exited = once(this.child, 'exit').then(([code, signal]) => ({ code, signal }) as { code: number | null; signal: NodeJS.Signals | null });
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** GETs `url` until it answers 200, failing with the output if the process exits or time runs out. */
  async waitFor(url: string, timeoutMs = 30_000): Promise<Response> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.running) throw new Error(`exited before ${url} answered:\n${this.output.join('\n')}`);
      const res = await fetch(url).catch(() => undefined);
      if (res?.status === 200) return res;
      if (Date.now() > deadline) throw new Error(`${url} did not answer 200 in ${timeoutMs} ms (last ${res?.status}):\n${this.output.join('\n')}`);
      await sleep(100);
    }
  }

  /** Sends SIGTERM and resolves with how it exited and how long that took. */
  async terminate(timeoutMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
    const started = Date.now();
    this.child.kill('SIGTERM');
    return this.exitWithin(timeoutMs, started);
  }

  async exitWithin(timeoutMs: number, started = Date.now()): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
    const result = await Promise.race([this.exited, sleep(timeoutMs, null, { ref: false })]);
    if (!result) {
      this.child.kill('SIGKILL');
      throw new Error(`did not exit within ${timeoutMs} ms:\n${this.output.join('\n')}`);
    }
    return { ...result, ms: Date.now() - started };
  }

  kill(): void {
    if (this.running) this.child.kill('SIGKILL');
  }
}
