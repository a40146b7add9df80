import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { freePort } from '../scripts/lib/free-port';
import { STOP_TIMEOUT_MS } from '../scripts/lib/supervisor';
import { createTestDatabase, databaseUrl, dropDatabase, withAdminClient } from './support/databases';

const ROOT = join(__dirname, '..');
const TSX_CLI = require.resolve('tsx/cli');
const SECRET_KEY = 'start-test-secret-key-that-is-long-enough-0123456789';
const MIGRATIONS = readdirSync(join(ROOT, 'prisma/migrations'), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

/** `pnpm start` as a real process, with its output collected. */
class StartProcess {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  /** `viaPnpm` runs the real `pnpm start` in a process group of its own, as a terminal runs a command. */
  constructor(env: Record<string, string>, options: { viaPnpm?: boolean } = {}) {
    // Only what the tools need from this environment, so a developer's DATABASE_URL cannot leak in.
    const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
    const [command, args] = options.viaPnpm ? ['pnpm', ['start']] : [process.execPath, [TSX_CLI, 'scripts/start.ts']];
    this.child = spawn(command, args, { cwd: ROOT, env: { ...base, ...env }, detached: options.viaPnpm === true });
    this.child.stdout?.setEncoding('utf8').on('data', (s: string) => (this.stdout += s));
    this.child.stderr?.setEncoding('utf8').on('data', (s: string) => (this.stderr += s));
    this.exited = once(this.child, 'close').then(([code, signal]) => ({ code, signal }));
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  async exitWithin(ms: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; elapsedMs: number }> {
    const started = Date.now();
    const result = await Promise.race([this.exited, sleep(ms, null, { ref: false })]);
    if (!result) throw new Error(`pnpm start did not exit within ${ms} ms.\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`);
    return { ...result, elapsedMs: Date.now() - started };
  }

  async waitForOutput(pattern: RegExp, ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (!pattern.test(this.stdout)) {
      if (Date.now() > deadline || !this.running) {
        throw new Error(`no output matching ${pattern} within ${ms} ms.\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`);
      }
      await sleep(100);
    }
  }
}

async function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  const listening = once(server, 'listening').then(() => true);
  const failed = once(server, 'error').then(() => false);
  server.listen(port, '0.0.0.0');
  const free = await Promise.race([listening, failed]);
  if (free) await new Promise((resolve) => server.close(resolve));
  return free;
}

/** GETs `url` until it answers 200 or `timeoutMs` passes; gives up early if `start` has exited. */
async function poll(start: StartProcess, url: string, timeoutMs: number): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!start.running) throw new Error(`pnpm start exited.\nstdout:\n${start.stdout}\nstderr:\n${start.stderr}`);
    try {
      const res = await fetch(url);
      if (res.status === 200 || Date.now() > deadline) return res;
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    await sleep(250);
  }
}

/** The first of `count` consecutive free ports, none of them `taken` (ports free now that another process will open). */
async function freePortRun(count: number, taken: readonly number[]): Promise<number> {
  for (;;) {
    const first = await freePort();
    if (first + count - 1 > 65_535 || taken.some((p) => p >= first && p < first + count)) continue;
    // portIsFree throws, rather than answering false, when the port is taken (events.once rejects on 'error').
    const rest = await Promise.all(Array.from({ length: count - 1 }, (_, i) => portIsFree(first + i + 1).catch(() => false)));
    if (rest.every(Boolean)) return first;
  }
}

async function databaseExists(name: string): Promise<boolean> {
  return withAdminClient(async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1);
}

const uniqueName = (label: string) => `mailroom_test_start_${label}_${randomBytes(4).toString('hex')}`;

function baseEnv(database: string, port: number): Record<string, string> {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: databaseUrl(database),
    REDIS_URL: 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: `mrtest-start-${randomBytes(4).toString('hex')}`,
    API_PORT: String(port),
    PUBLIC_API_URL: `http://localhost:${port}`,
    SECRET_KEY,
  };
}

describe('pnpm start', () => {
  describe('when PostgreSQL and Redis are up', () => {
    const database = uniqueName('ok');
    let port = 0;
    let start: StartProcess;

    let opsPort = 0;

    beforeAll(async () => {
      port = await freePort();
      opsPort = await freePortRun(3, [port, 3001, 2525]);
      start = new StartProcess({ ...baseEnv(database, port), OPS_PORT: String(opsPort) });
    });

    afterAll(async () => {
      if (start.running) {
        start.child.kill('SIGTERM');
        await start.exitWithin(20_000).catch(() => start.child.kill('SIGKILL'));
      }
      await dropDatabase(database);
    }, 30_000);

    test('then /healthz and /readyz answer 200 within 30 s', async () => {
      const health = await poll(start, `http://127.0.0.1:${port}/healthz`, 30_000);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });
      const ready = await poll(start, `http://127.0.0.1:${port}/readyz`, 5_000);
      expect(ready.status).toBe(200);
    }, 40_000);

    test('then the database was created with every migration applied', async () => {
      expect(await databaseExists(database)).toBe(true);
      const client = new Client({ connectionString: databaseUrl(database) });
      await client.connect();
      try {
        const { rows } = await client.query<{ migration_name: string; finished_at: Date | null; rolled_back_at: Date | null }>(
          'SELECT migration_name, finished_at, rolled_back_at FROM _prisma_migrations ORDER BY migration_name',
        );
        expect(rows.map((r) => r.migration_name)).toEqual(MIGRATIONS);
        expect(rows.every((r) => r.finished_at !== null && r.rolled_back_at === null)).toBe(true);
      } finally {
        await client.end();
      }
    });

    test('then service output carries the [gateway] tag and the API URL is printed', async () => {
      await start.waitForOutput(/\/docs/, 10_000);
      const gatewayLogs = start.stdout.split('\n').filter((l) => l.includes('"service":"gateway"'));
      expect(gatewayLogs.length).toBeGreaterThan(0);
      expect(gatewayLogs.filter((l) => !/^\[gateway\] +\{/.test(l))).toEqual([]);
      expect(start.stdout).toContain(`http://localhost:${port}/docs`);
      expect(start.stdout).not.toContain('\u001b['); // no colour codes when stdout is not a terminal
    }, 15_000);

    test('when OPS_PORT is set, then each worker serves its ops endpoints on a port of its own (OPS_PORT, +1, +2 in name order), and the output names them', async () => {
      await start.waitForOutput(/Press Ctrl-C/, 30_000);
      const workers = ['inbound-smtp', 'sender', 'webhook-dispatcher'];
      for (const [i, name] of workers.entries()) {
        expect(start.stdout).toContain(`Ops (${name})`);
        expect(start.stdout).toContain(`http://localhost:${opsPort + i}`);
        const res = await poll(start, `http://127.0.0.1:${opsPort + i}/healthz`, 10_000);
        expect([name, res.status]).toEqual([name, 200]);
        const metrics = await (await fetch(`http://127.0.0.1:${opsPort + i}/metrics`)).text();
        expect([name, metrics.includes(`mailroom_${name.replace(/-/g, '_')}_process_cpu`)]).toEqual([name, true]);
      }
    }, 60_000);

    test('when OUTBOUND_SMTP_URL is unset, then it says mail goes to MX hosts on port 25 and how to catch it locally', async () => {
      await start.waitForOutput(/Press Ctrl-C/, 10_000);
      expect(start.stdout).toContain("OUTBOUND_SMTP_URL is unset: mail goes directly to each recipient's MX host on port 25 (MX_PORT).");
      expect(start.stdout).toContain('pnpm dev:mailbox');
    }, 15_000);

    test('when it receives SIGTERM, then every service stops, it exits 0 and the port is free', async () => {
      expect(start.running).toBe(true);
      start.child.kill('SIGTERM');
      const { code, elapsedMs } = await start.exitWithin(20_000);
      expect(code).toBe(0);
      // Stopped by the forwarded SIGTERM, not by the SIGKILL that follows 15 s later.
      expect(elapsedMs).toBeLessThan(STOP_TIMEOUT_MS);
      expect(start.stderr).not.toContain('did not stop');
      expect(await portIsFree(port)).toBe(true);
      // The gateway's own connections are gone too: it exited rather than being orphaned.
      const sessions = await withAdminClient(async (c) => {
        for (let i = 0; ; i++) {
          const { rows } = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [database]);
          if (rows[0]?.n === 0 || i >= 20) return rows[0]?.n;
          await sleep(100);
        }
      });
      expect(sessions).toBe(0);
    }, 30_000);
  });

  describe('when it is run through pnpm and stopped with Ctrl-C', () => {
    const database = uniqueName('pnpm');

    afterAll(() => dropDatabase(database), 30_000);

    test('then it stops cleanly, exits 0 and pnpm reports no failure', async () => {
      const start = new StartProcess(baseEnv(database, await freePort()), { viaPnpm: true });
      try {
        await start.waitForOutput(/Press Ctrl-C/, 40_000);
        // A terminal's Ctrl-C signals the whole foreground process group: pnpm, its script and start.
        process.kill(-(start.child.pid ?? 0), 'SIGINT');
        const { code, signal } = await start.exitWithin(20_000);
        expect({ code, signal }).toEqual({ code: 0, signal: null });
        expect(start.stdout).toContain('Stopped.');
        expect(`${start.stdout}${start.stderr}`).not.toMatch(/ELIFECYCLE|Command failed/);
      } finally {
        if (start.running) process.kill(-(start.child.pid ?? 0), 'SIGKILL');
      }
    }, 70_000);
  });

  describe('when a port it needs is taken', () => {
    const database = uniqueName('port');
    let holder: Server;
    let port = 0;

    beforeAll(async () => {
      holder = createServer((socket) => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n')).listen(0, '0.0.0.0');
      await once(holder, 'listening');
      port = (holder.address() as AddressInfo).port;
    });

    afterAll(async () => {
      await new Promise((resolve) => holder.close(resolve));
      await dropDatabase(database);
    });

    test('when API_PORT is held by another server, then pnpm start exits 1 with one sentence naming API_PORT and never claims to be running', async () => {
      const start = new StartProcess(baseEnv(database, port));
      const { code } = await start.exitWithin(15_000);
      expect(code).toBe(1);
      expect(start.stderr.trim()).toBe(`Port ${port} is already in use; set API_PORT to a free port.`);
      expect(start.stdout).not.toMatch(/running/i);
    }, 20_000);

    test('when the gateway alone is started on a taken port, then it exits 1 with the same sentence and no stack trace', async () => {
      const db = await createTestDatabase('start_port_gateway');
      try {
        const child = spawn(process.execPath, ['--import', require.resolve('tsx'), 'services/gateway/src/main.ts'], {
          cwd: ROOT,
          env: { PATH: process.env.PATH ?? '', ...baseEnv(db.name, port), DATABASE_URL: db.url, LOG_LEVEL: 'silent' },
        });
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
        const [code] = await once(child, 'close');
        expect(code).toBe(1);
        expect(stderr.trim()).toBe(`gateway: Port ${port} is already in use; set API_PORT to a free port.`);
      } finally {
        await db.drop();
      }
    }, 30_000);
  });

  describe('when a dependency or a variable is wrong', () => {
    const database = uniqueName('bad');

    afterAll(() => dropDatabase(database));

    async function failingStart(overrides: Record<string, string>) {
      const start = new StartProcess({ ...baseEnv(database, await freePort()), ...overrides });
      const result = await start.exitWithin(15_000);
      return { ...result, stdout: start.stdout, stderr: start.stderr.trim() };
    }

    test('when Redis is unreachable, then it exits 1 at once with one sentence naming Redis, its URL and how to start it', async () => {
      const { code, elapsedMs, stdout, stderr } = await failingStart({ REDIS_URL: 'redis://127.0.0.1:1' });
      expect(code).toBe(1);
      expect(elapsedMs).toBeLessThan(10_000);
      expect(stderr.split('\n')).toHaveLength(1);
      expect(stderr).toMatch(/^Cannot reach Redis at redis:\/\/127\.0\.0\.1:1\b/);
      expect(stderr).toContain('docker compose up -d postgres redis');
      expect(stdout).toBe('');
      expect(await databaseExists(database)).toBe(false);
    }, 20_000);

    test('when PostgreSQL is unreachable, then it exits 1 at once with one sentence naming PostgreSQL, its URL and how to start it', async () => {
      const url = `postgresql://postgres@127.0.0.1:1/${database}`;
      const { code, elapsedMs, stdout, stderr } = await failingStart({ DATABASE_URL: url });
      expect(code).toBe(1);
      expect(elapsedMs).toBeLessThan(10_000);
      expect(stderr.split('\n')).toHaveLength(1);
      expect(stderr).toContain(`Cannot reach PostgreSQL at ${url}`);
      expect(stderr).toContain('docker compose up -d postgres redis');
      expect(stdout).toBe('');
    }, 20_000);

    test('when API_PORT is not a port, then it exits 1 naming API_PORT', async () => {
      const { code, stderr } = await failingStart({ API_PORT: 'notaport' });
      expect(code).toBe(1);
      expect(stderr.split('\n')).toHaveLength(1);
      expect(stderr).toMatch(/\bAPI_PORT\b/);
      expect(stderr).toContain('notaport');
      expect(await databaseExists(database)).toBe(false);
    }, 20_000);
  });
});
