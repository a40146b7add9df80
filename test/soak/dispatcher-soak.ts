// Soak of the webhook dispatcher: per phase, a new project with endpoints on new receivers that
// answer 200, 500, hang, reset the connection, or refuse; events fanned out to all; PG backends
// killed once mid-phase; endpoints deleted at the end. Run: pnpm exec tsx test/soak/dispatcher-soak.ts
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createEndpoint, createProject, openTestBed } from '../../services/webhook-dispatcher/test/support';
import { killPgOf, phases, Probed, sleep } from './harness';

type Mode = 'ok' | 'fail' | 'hang' | 'reset' | 'slow' | 'flood' | 'trickle';
async function receiver(mode: Mode): Promise<{ url: string; stop(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (mode === 'ok') res.end('ok');
      else if (mode === 'slow') setTimeout(() => res.end('ok'), 300);
      else if (mode === 'fail') res.writeHead(500).end('nope');
      else if (mode === 'reset') req.socket.destroy();
      else if (mode === 'flood') res.end('x'.repeat(1_000_000));
      else if (mode === 'trickle') {
        // Headers at once, then a byte every 100 ms: past the deadline.
        res.writeHead(200);
        const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write('.')), 100);
        res.on('close', () => clearInterval(t));
      }
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function main() {
  const PHASES = Number(process.env.PHASES ?? 4);
  const EVENTS = Number(process.env.EVENTS ?? 60);
  const bed = await openTestBed('soakdispatch', { WEBHOOK_RETRY_SCHEDULE: '1,1', WEBHOOK_TIMEOUT_SECONDS: '2', LEASE_SECONDS: '2', RECONCILE_INTERVAL_SECONDS: '1' });
  const dispatcher = await Probed.start('webhook-dispatcher', { ...bed.env, LOG_LEVEL: 'warn' }, 'webhook dispatcher started').catch(async () =>
    Probed.start('webhook-dispatcher', { ...bed.env, LOG_LEVEL: 'info' }, 'webhook dispatcher started'),
  );
  // SAME_RECEIVERS=1: the same receivers (origins) every phase, to tell per-origin state from the rest.
  const modes: Mode[] = ['ok', 'slow', 'fail', 'hang', 'reset', ...(process.env.MORE_MODES ? (['flood', 'trickle'] as Mode[]) : [])];
  const shared = process.env.SAME_RECEIVERS ? await Promise.all(modes.map(receiver)) : null;
  try {
    await phases('dispatcher', [dispatcher], PHASES, async (n) => {
      const receivers = shared ?? (await Promise.all(modes.map(receiver)));
      const projectId = await createProject(bed.pool);
      const urls = [...receivers.map((r) => r.url), 'http://127.0.0.1:9/refused'];
      for (const url of urls) await createEndpoint(bed.pool, projectId, { url, events: ['email.received'] });
      for (let i = 0; i < EVENTS; i += 10) {
        await bed.emit(projectId, 'email.received', 10);
        await sleep(200);
        if (i === 30) await killPgOf(dispatcher.pid);
      }
      const deadline = Date.now() + 180_000;
      let pending = -1;
      while (Date.now() < deadline) {
        const { rows } = await bed.pool.query<{ n: number }>({ text: `SELECT count(*)::int AS n FROM webhook_deliveries WHERE project_id = $1 AND state = 'pending'`, values: [projectId] });
        pending = rows[0]?.n ?? 0;
        if (pending === 0) break;
        await sleep(1000);
      }
      const { rows } = await bed.pool.query<{ state: string; n: number }>({ text: `SELECT state::text, count(*)::int AS n FROM webhook_deliveries WHERE project_id = $1 GROUP BY 1`, values: [projectId] });
      await bed.pool.query({ text: 'DELETE FROM webhooks WHERE project_id = $1', values: [projectId] });
      if (!shared) await Promise.all(receivers.map((r) => r.stop()));
      return `phase ${n}: ${rows.map((r) => `${r.state}=${r.n}`).join(',')} pending=${pending}`;
    });
    dispatcher.printProblems(8);
  } finally {
    await Promise.all((shared ?? []).map((r) => r.stop()));
    await dispatcher.stop();
    await bed.close();
  }
}
void main().then(() => process.exit(0), (err: unknown) => { console.error(err); process.exit(1); });
