// Soak of the sender in direct-MX mode: per phase, emails to new domains (each with its own MX
// host name, so new transport pools), answered by a peer that accepts, defers, rejects, drops the
// connection mid-DATA or is slow; plus domains whose MX is refused (127.0.0.3), hangs without a
// greeting (127.0.0.2), is NXDOMAIN, SERVFAIL, or never answered. Run: pnpm exec tsx test/soak/sender-soak.ts
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { FINAL_STATUSES } from '@mailroom/core';
import { SMTPServer } from 'smtp-server';
import { createTestDatabase } from '../support/databases';
import { DnsServer, type DnsZone } from '../support/dns-server';
import { freePort } from '../support/free-port';
import { createKey, signUp, startTestGateway, testEnv } from '../support/gateway';
import { phases, Probed, sleep } from './harness';

const PHASES = Number(process.env.PHASES ?? 4);
const DOMAINS = Number(process.env.DOMAINS ?? 40);

function sink(port: number): SMTPServer {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    onRcptTo: (address, _session, callback) => {
      const local = address.address.split('@')[0] ?? '';
      if (local.startsWith('reject')) return callback(Object.assign(new Error('5.1.1 no such user'), { responseCode: 550 }));
      if (local.startsWith('defer')) return callback(Object.assign(new Error('4.2.0 try later'), { responseCode: 451 }));
      callback();
    },
    onData: (stream, session, callback) => {
      const drop = session.envelope.rcptTo.some((r) => r.address.startsWith('drop'));
      const slow = session.envelope.rcptTo.some((r) => r.address.startsWith('slow'));
      if (drop) {
        stream.once('data', () => {
          for (const c of (server as unknown as { connections: Set<{ id: string; _socket: Socket }> }).connections) if (c.id === session.id) c._socket.destroy();
        });
      }
      stream.resume();
      stream.on('end', () => setTimeout(() => callback(), slow ? 2000 : 0));
    },
  });
  server.on('error', () => undefined);
  server.listen(port, '127.0.0.1');
  return server;
}

async function main() {
  const port = await freePort();
  const smtp = sink(port);
  const hangers = new Set<Socket>();
  const hang: Server = createServer((s) => {
    hangers.add(s);
    s.on('error', () => undefined);
    s.on('close', () => hangers.delete(s));
  }).listen(port, '127.0.0.2');
  await once(hang, 'listening');
  const zone: DnsZone = {};
  const silent: string[] = [];
  const servfail: string[] = [];
  for (let p = 1; p <= PHASES; p++) {
    for (let d = 0; d < DOMAINS; d++) {
      const domain = `d${d}.p${p}.soak.test`;
      const kind = d % 10;
      const mx = (address: string) => {
        zone[domain] = { MX: [{ preference: 10, exchange: `mx.${domain}` }] };
        zone[`mx.${domain}`] = { A: [address] };
      };
      if (kind === 7) mx('127.0.0.3');
      else if (kind === 8 && d % 20 === 8) mx('127.0.0.2');
      else if (kind === 8) servfail.push(domain);
      else if (kind === 9 && d % 20 === 9) silent.push(domain);
      else if (kind !== 9) mx('127.0.0.1'); // kind 9 otherwise: NXDOMAIN
    }
  }
  const dns = await new DnsServer({ zone, silent, servfail }).start();
  const database = await createTestDatabase('soaksender');
  const env = testEnv(database, {
    DNS_SERVERS: dns.address,
    MX_PORT: String(port),
    ALLOW_PRIVATE_NETWORKS: 'true',
    SMTP_RETRY_SCHEDULE: '1,1',
    LEASE_SECONDS: '5',
    RECONCILE_INTERVAL_SECONDS: '1',
    SENDER_CONCURRENCY: '8',
  });
  const t = await startTestGateway({ database, env });
  const owner = await signUp(t.api);
  const api = t.api.as({ token: (await createKey(owner.as)).token });
  const sender = await Probed.start('sender', { ...env, LOG_LEVEL: 'info' }, 'sender started');
  const locals = ['ok', 'ok2', 'reject', 'defer', 'drop', 'slow'];
  try {
    await phases('sender', [sender], PHASES, async (n) => {
      const ids: string[] = [];
      for (let d = 0; d < DOMAINS; d++) {
        const to = locals.map((l) => `${l}@d${d}.p${n}.soak.test`);
        // One email per recipient, plus one to all at once; some with HTML and tracked links.
        const batch = [
          ...to.map((r, i) => ({ from: 'Acme <hello@acme.test>', to: r, subject: `p${n} d${d} ${i}`, text: 'Hello', html: i % 2 ? '<p>Hi <a href="https://acme.test/x">x</a></p>' : undefined })),
          { from: 'hello@acme.test', to, subject: `p${n} d${d} all`, text: 'Hello all' },
        ];
        const res = await api.post('/emails/batch', batch);
        if (res.status !== 200) throw new Error(`batch ${res.status} ${res.text}`);
        ids.push(...res.body.data.map((e: { id: string }) => e.id));
        await sleep(100);
      }
      const deadline = Date.now() + 240_000;
      let open = -1;
      while (Date.now() < deadline) {
        open = await t.gateway.ctx.db.email.count({ where: { id: { in: ids }, status: { notIn: [...FINAL_STATUSES] as never } } });
        if (open === 0) break;
        await sleep(2000);
      }
      const byStatus = await t.gateway.ctx.db.email.groupBy({ by: ['status'], where: { id: { in: ids } }, _count: true });
      return `${ids.length} emails, open=${open}: ${byStatus.map((s) => `${s.status}=${s._count}`).join(',')}`;
    }, 75_000);
    sender.printProblems();
  } finally {
    await sender.stop();
    await t.close();
    for (const s of hangers) s.destroy();
    hang.close();
    smtp.close(() => undefined);
    await dns.stop();
    await database.drop();
  }
}
void main().then(() => process.exit(0), (err: unknown) => { console.error(err); process.exit(1); });
