// Soak of reconnection: every service as a process on one database; per phase, several rounds of
// killing each process's Redis connections (CLIENT KILL) and PostgreSQL backends
// (pg_terminate_backend), with light traffic through each between rounds.
// Run: pnpm exec tsx test/soak/churn-soak.ts
import { connect } from 'node:net';
import { createRedis } from '@mailroom/core';
import { killRedisClientsOf } from '../../services/webhook-dispatcher/test/resilience-support';
import { createTestDatabase } from '../support/databases';
import { freePort } from '../support/free-port';
import { createKey, signUp, testEnv } from '../support/gateway';
import { apiClient } from '../support/http';
import { SmtpSink } from '../support/smtp-sink';
import { killPgOf, phases, Probed, sleep } from './harness';

const PHASES = Number(process.env.PHASES ?? 4);
const ROUNDS = Number(process.env.ROUNDS ?? 4);

function smtpOnce(port: number, to: string): Promise<void> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    const lines = ['EHLO c', 'MAIL FROM:<a@x.test>', `RCPT TO:<${to}>`, 'DATA', 'Subject: churn\r\n\r\nhi\r\n.', 'QUIT'];
    let i = 0;
    s.on('data', () => (i < lines.length ? s.write(`${lines[i++]}\r\n`) : undefined));
    s.on('error', () => resolve());
    s.on('close', () => resolve());
  });
}

async function main() {
  const sink = await new SmtpSink({ starttls: false }).start();
  const database = await createTestDatabase('soakchurn');
  const [apiPort, trackingPort, smtpPort] = [await freePort(), await freePort(), await freePort()];
  const env = testEnv(database, {
    API_PORT: String(apiPort), TRACKING_PORT: String(trackingPort), SMTP_PORT: String(smtpPort), ALLOW_SIGNUP: 'true', ALLOW_PRIVATE_NETWORKS: 'true',
    OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sink.port}`, SMTP_RETRY_SCHEDULE: '1,1', LEASE_SECONDS: '5', RECONCILE_INTERVAL_SECONDS: '1', LOG_LEVEL: 'info',
  });
  const services = [
    await Probed.start('gateway', env, 'gateway listening'),
    await Probed.start('sender', env, 'sender started'),
    await Probed.start('webhook-dispatcher', env, 'webhook dispatcher started'),
    await Probed.start('inbound-smtp', env, 'inbound SMTP started'),
    await Probed.start('tracking', env, 'tracking started'),
  ];
  const api = apiClient(`http://127.0.0.1:${apiPort}`);
  const owner = await signUp(api);
  const app = api.as({ token: (await createKey(owner.as)).token });
  await owner.as.post('/routes', { match: 'in@acme.test' });
  const admin = createRedis('redis://127.0.0.1:6379', 'request');
  await admin.connect();
  try {
    await phases('churn', services, PHASES, async () => {
      let killedRedis = 0;
      let killedPg = 0;
      let ok = 0;
      for (let r = 0; r < ROUNDS; r++) {
        for (const s of services) {
          killedRedis += await killRedisClientsOf(admin, s.pid);
          killedPg += await killPgOf(s.pid);
        }
        await sleep(3000);
        for (let i = 0; i < 5; i++) {
          const res = await app.post('/emails', { from: 'a@acme.test', to: `c${i}@example.test`, subject: 'churn', text: 'x' }).catch(() => null);
          if (res?.status === 200) ok++;
          await smtpOnce(smtpPort, 'in@acme.test');
          await fetch(`http://127.0.0.1:${trackingPort}/o/x`).catch(() => null);
        }
        await sleep(2000);
      }
      return `killed redis=${killedRedis} pg=${killedPg} sends ok=${ok} delivered total=${sink.messages.length}`;
    });
    for (const s of services) {
      s.printProblems(2);
    }
  } finally {
    admin.disconnect();
    for (const s of services) await s.stop();
    await sink.stop();
    await database.drop();
  }
}
void main().then(() => process.exit(0), (err: unknown) => { console.error(err); process.exit(1); });
