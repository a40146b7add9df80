import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { discoverServiceNames } from '../../scripts/lib/production/entries';
import { Client } from 'pg';
import { databaseUrl, dropDatabase } from '../support/databases';
import { apiClient } from '../support/http';
import type { KubeObject } from './support/kubernetes';
import { renderKustomization } from './support/kubernetes';
import { HoldingSink } from './support/holding-sink';
import { createPool } from '@mailroom/db';
import { appendTestEvents, createEndpoint, createProject, Receiver } from '../../services/webhook-dispatcher/test/support';
import { buildProductionTree, podPlan, runEntrypoint, TreeProcess } from './support/production-tree';

const ROOT = join(__dirname, '../..');
const SERVICES = discoverServiceNames(ROOT);
const MIGRATIONS = readdirSync(join(ROOT, 'prisma/migrations'), { withFileTypes: true }).filter((e) => e.isDirectory()).length;
const SECRET_KEY = 'production-test-secret-key-0123456789abcdef';
const DATABASE = `mailroom_test_prod_${randomBytes(4).toString('hex')}`;
const QUEUE_PREFIX = `mrtest-prod-${randomBytes(4).toString('hex')}`;

jest.setTimeout(60_000);

let tree: string;
let manifests: KubeObject[];
let migration: ReturnType<typeof runEntrypoint>;
const started: TreeProcess[] = [];

/** What every process shares in this test: its own database and queue prefix, and production mode. */
const backends = {
  NODE_ENV: 'production',
  DATABASE_URL: databaseUrl(DATABASE),
  REDIS_URL: 'redis://127.0.0.1:6379',
  QUEUE_PREFIX,
  SECRET_KEY,
  // Required in production, as the ConfigMap sets them (the migration runs with these alone).
  DOMAIN_MX_HOST: 'mx.mailroom.test',
  DOMAIN_SPF_MECHANISMS: 'ip4:127.0.0.1',
  // Sends from example.com must not wait for a verified domain, once that rule exists.
  REQUIRE_VERIFIED_DOMAINS: 'false',
};

/** Starts `service` from the tree with its Deployment's environment, and waits for its readiness probe. */
async function startService(service: string, extra: Record<string, string> = {}) {
  const plan = await podPlan(manifests, service);
  const process = new TreeProcess(tree, service, { ...plan.env, ...backends, ...extra });
  started.push(process);
  await process.waitFor(plan.probes.readinessProbe as string);
  return { process, plan };
}

/** The time SIGTERM may take: the grace period less the preStop pause spent before it. */
const drainBudgetMs = (plan: { graceSeconds: number; preStopSeconds: number }) => (plan.graceSeconds - plan.preStopSeconds) * 1000;

beforeAll(async () => {
  tree = mkdtempSync(join(tmpdir(), 'mailroom-production-'));
  buildProductionTree(tree);
  manifests = renderKustomization('k8s/base');
  migration = runEntrypoint(tree, ['migrate'], backends);
}, 180_000);

afterAll(async () => {
  for (const process of started) process.kill();
  rmSync(tree, { recursive: true, force: true });
  await dropDatabase(DATABASE);
});

describe('the production tree', () => {
  test('when built, then it holds a bundle per service, the migration and its entry point, and no development tools or sources', () => {
    for (const name of [...SERVICES, 'migrate', 'healthcheck']) expect(existsSync(join(tree, 'dist', `${name}.js`))).toBe(true);
    expect(existsSync(join(tree, 'bin/mailroom'))).toBe(true);
    expect(existsSync(join(tree, 'prisma/schema.prisma'))).toBe(true);
    expect(existsSync(join(tree, 'dashboard/index.html'))).toBe(true);
    // Runtime dependencies resolved from the one node_modules; the workspace's code only inside the bundles.
    for (const runtime of ['bullmq', 'express', 'smtp-server', '@prisma/client', '@prisma/schema-engine-wasm']) {
      expect(existsSync(join(tree, 'node_modules', runtime, 'package.json'))).toBe(true);
    }
    const present = (names: string[], dir: string) => names.filter((name) => existsSync(join(tree, dir, name)));
    // Development tools, and the optional peers Prisma's client names (its CLI, TypeScript), are left out.
    expect(present(['@mailroom', 'tsx', 'esbuild', 'jest', 'ts-jest', '@biomejs', 'autocannon', 'prisma', 'typescript'], 'node_modules')).toEqual([]);
    expect(present(['packages', 'services', 'scripts', 'test'], '.')).toEqual([]);
  });

  test('when `mailroom migrate` runs against a server without the database, then it creates it and applies every migration, once', () => {
    expect(migration.stderr).toBe('');
    expect(migration.status).toBe(0);
    expect(migration.stdout).toContain(`Created the database ${DATABASE}.`);
    expect(migration.stdout).toContain(`Applied ${MIGRATIONS} migrations`);
    const again = runEntrypoint(tree, ['migrate'], backends);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('No pending migrations');
  });

  test('when the entry point is given an unknown service, then it exits 64 naming the services', () => {
    const result = runEntrypoint(tree, ['nope'], backends);
    expect(result.status).toBe(64);
    expect(result.stderr).toContain(`Unknown service "nope"; services: ${SERVICES.join(' ')}`);
  });

  test.each(SERVICES)(
    'when %s starts with its Deployment’s environment, then its probes answer, the health check passes, and SIGTERM stops it cleanly within its grace',
    async (service) => {
      const { process, plan } = await startService(service);
      const liveness = await process.waitFor(plan.probes.livenessProbe as string);
      expect(await liveness.json()).toEqual({ status: 'ok' });
      const readiness = await process.waitFor(plan.probes.readinessProbe as string);
      expect(await readiness.json()).toMatchObject({ status: 'ready' });
      expect((await spawnHealthcheck({ ...plan.env, ...backends })).status).toBe(0);
      const exit = await process.terminate(drainBudgetMs(plan));
      expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });

    },
  );
});

describe('the production tree with work in flight', () => {
  test('when the gateway runs from the tree, then it serves the dashboard from the tree', async () => {
    const { plan } = await startService('gateway');
    const origin = new URL(plan.probes.readinessProbe as string).origin;
    const page = await fetch(`${origin}/dashboard/emails`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<div id="app">');
    const script = html.match(/src="(\/dashboard\/assets\/[^"]+\.js)"/)?.[1];
    expect((await fetch(`${origin}${script}`)).status).toBe(200);
  });

  test('when the health check finds only a port answering 503, then it fails', async () => {
    const server = createServer((_req, res) => res.writeHead(503).end()).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = String((server.address() as AddressInfo).port);
    try {
      let answered = 0;
      server.on('request', () => answered++);
      expect((await spawnHealthcheck({ ...backends, OPS_PORT: port, API_PORT: port, TRACKING_PORT: port })).status).toBe(1);
      // It was the 503 that failed it (the port was asked), not a timeout.
      expect(answered).toBeGreaterThan(0);
    } finally {
      server.close();
    }
  });

  test('when the sender gets SIGTERM during SMTP transactions, then it finishes them and exits 0, and a new sender delivers the rest, each email once', async () => {
    const sink = await new HoldingSink().start();
    const outbound = { OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sink.port}` };
    try {
      const { plan: gatewayPlan, process: gateway } = await startService('gateway');
      const { plan, process: sender } = await startService('sender', outbound);
      const api = apiClient(new URL(gatewayPlan.probes.readinessProbe as string).origin);
      const signup = await api.post('/auth/signup', { email: 'owner@example.com', password: 'correct horse battery', projectName: 'Prod' });
      expect(signup.status).toBe(201);
      const owner = api.as({ session: signup.body.sessionToken, project: signup.body.project.id });
      const app = api.as({ token: (await owner.post('/api-keys', { name: 'app' })).body.token });
      const sends = Array.from({ length: 5 }, (_, i) => ({ from: 'app@example.com', to: `someone${i}@example.net`, subject: `In flight ${i}`, text: 'Hello' }));
      const batch = await app.post('/emails/batch', sends);
      expect(batch.status).toBe(200);
      const ids = (batch.body.data as { id: string }[]).map((e) => e.id);

      await until(() => sink.received >= 1, 30_000);
      sender.child.kill('SIGTERM');
      // Still draining: the replies it waits for have not come.
      await sleep(500);
      expect(sender.running).toBe(true);
      sink.release();
      const releasing = setInterval(() => sink.release(), 50);
      const exit = await sender.exitWithin(drainBudgetMs(plan)).finally(() => clearInterval(releasing));
      expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
      // Whatever the stopped sender began, it finished and recorded; nothing is half-done.
      const statuses = async () => Promise.all(ids.map(async (id) => (await app.get(`/emails/${id}`)).body.status as string));
      const afterStop = await statuses();
      expect(afterStop.filter((status) => status === 'delivered').length).toBe(sink.accepted);
      expect(afterStop.every((status) => status === 'delivered' || status === 'queued')).toBe(true);

      sink.stopHolding();
      const { plan: nextPlan, process: next } = await startService('sender', outbound);
      await until(() => sink.accepted >= ids.length, 30_000);
      let final = await statuses();
      for (const deadline = Date.now() + 15_000; final.some((s) => s !== 'delivered') && Date.now() < deadline; final = await statuses()) await sleep(100);
      expect(final).toEqual(ids.map(() => 'delivered'));
      expect({ accepted: sink.accepted, received: sink.received }).toEqual({ accepted: ids.length, received: ids.length });
      expect((await next.terminate(drainBudgetMs(nextPlan))).code).toBe(0);
      expect((await gateway.terminate(drainBudgetMs(gatewayPlan))).code).toBe(0);
    } finally {
      await sink.stop();
    }
  });

  test('when the webhook dispatcher gets SIGTERM while posts are in flight, then it finishes and records them, exits 0, and a new dispatcher delivers the rest, each (event, endpoint) once', async () => {
    const receiver = await new Receiver().start();
    const pool = createPool(databaseUrl(DATABASE), 2);
    // The receiver is on loopback, which production refuses unless told otherwise.
    const loopback = { ALLOW_PRIVATE_NETWORKS: 'true' };
    try {
      const projectId = await createProject(pool);
      const endpoints = await Promise.all(['a', 'b'].map((name) => createEndpoint(pool, projectId, { url: `${receiver.url}?${name}`, events: ['email.received'], masterSecret: SECRET_KEY })));
      const ids = await appendTestEvents(pool, projectId, Array.from({ length: 20 }, () => ({ type: 'email.received' })));
      // Slow enough that SIGTERM finds posts in flight, well within the drain budget.
      receiver.delayMs = 1_500;
      const { plan, process: dispatcher } = await startService('webhook-dispatcher', loopback);
      await until(() => receiver.open >= 2, 30_000);
      dispatcher.child.kill('SIGTERM');
      // Still draining: the answers it waits for have not come.
      await sleep(500);
      expect(dispatcher.running).toBe(true);
      const exit = await dispatcher.exitWithin(drainBudgetMs(plan));
      expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
      // Every post it began was answered and recorded; whatever it had not begun is pending and free for the next one.
      const deliveries = async () =>
        (await pool.query<{ state: string; leased: boolean }>("SELECT state, coalesce(lease_until > now(), false) AS leased FROM webhook_deliveries")).rows;
      const afterStop = await deliveries();
      expect(afterStop).toHaveLength(ids.length * endpoints.length);
      expect(afterStop.filter((d) => d.state === 'succeeded').length).toBe(receiver.requests.length);
      expect(afterStop.filter((d) => d.state !== 'succeeded').every((d) => d.state === 'pending' && !d.leased)).toBe(true);
      expect(receiver.requests.length).toBeLessThan(ids.length * endpoints.length);

      receiver.delayMs = 0;
      const { plan: nextPlan, process: next } = await startService('webhook-dispatcher', loopback);
      await untilAsync(async () => (await deliveries()).every((d) => d.state === 'succeeded'), 30_000);
      expect((await next.terminate(drainBudgetMs(nextPlan))).code).toBe(0);
      const seen = receiver.requests.map((r) => `${String(r.headers['webhook-id'])} ${r.url}`).sort();
      const expected = ids.flatMap((id) => ['a', 'b'].map((name) => `${id} /hook?${name}`)).sort();
      expect(seen).toEqual(expected);
    } finally {
      await pool.end();
      await receiver.stop();
    }
  });

  test('when the MX gets SIGTERM while messages are in DATA, then it stores and accepts each, refuses new connections, and exits 0', async () => {
    const { plan, process: mx } = await startService('inbound-smtp');
    const port = Number(plan.env.SMTP_PORT);
    const clients = await Promise.all([1, 2, 3].map(() => SmtpDialog.open(port)));
    for (const [i, client] of clients.entries()) {
      expect(await client.command('EHLO client.example.net')).toMatch(/^250/);
      expect(await client.command('MAIL FROM:<reporter@example.net>')).toMatch(/^250/);
      expect(await client.command(`RCPT TO:<fbl@${plan.env.BOUNCE_DOMAIN}>`)).toMatch(/^250/);
      expect(await client.command('DATA')).toMatch(/^354/);
      client.write(`From: reporter@example.net\r\nSubject: in flight ${i}\r\n\r\nfirst half\r\n`);
    }

    mx.child.kill('SIGTERM');
    await sleep(500);
    expect(mx.running).toBe(true);
    const refused = await SmtpDialog.open(port);
    expect(await refused.greeting).toMatch(/^421/);
    refused.close();
    for (const client of clients) {
      expect(await client.command('second half\r\n.')).toMatch(/^250/);
      client.close();
    }

    const exit = await mx.exitWithin(drainBudgetMs(plan));
    expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
    // The only mail this test's database ever receives.
    const db = new Client({ connectionString: databaseUrl(DATABASE) });
    await db.connect();
    try {
      expect((await db.query('SELECT count(*)::int AS n FROM received_emails')).rows[0].n).toBe(clients.length);
    } finally {
      await db.end();
    }
  });
});

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  await untilAsync(async () => condition(), timeoutMs);
}

async function untilAsync(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(50);
  }
}

/** A raw SMTP client: one command, one (last line of the) reply, so a test can stop in the middle of DATA. */
class SmtpDialog {
  private buffer = '';
  private waiting: ((line: string) => void) | undefined;
  readonly greeting: Promise<string>;

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8');
    this.greeting = this.nextReply();
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      // A reply ends with a line whose code is followed by a space (not a dash).
      const match = /^(\d{3} .*)\r\n/m.exec(this.buffer);
      if (match && this.waiting) {
        const resolve = this.waiting;
        this.waiting = undefined;
        this.buffer = this.buffer.slice((match.index ?? 0) + match[0].length);
        resolve(match[1] as string);
      }
    });
  }

  static async open(port: number): Promise<SmtpDialog> {
    const socket = connect({ host: '127.0.0.1', port });
    await once(socket, 'connect');
    return new SmtpDialog(socket);
  }

  private nextReply(): Promise<string> {
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  write(text: string): void {
    this.socket.write(text);
  }

  async command(line: string): Promise<string> {
    await this.greeting;
    const reply = this.nextReply();
    this.socket.write(`${line}\r\n`);
    return reply;
  }

  close(): void {
    this.socket.destroy();
  }
}

/**
 * Runs the image's health check to completion. Not spawnSync: a server it asks may be this
 * process's own (the 503 one below), which a blocked event loop could not answer, so the check
 * would only ever see its own timeout.
 */
async function spawnHealthcheck(env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(tree, 'dist/healthcheck.js')], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const [status] = (await once(child, 'close')) as [number | null];
  return { status, stdout, stderr };
}
