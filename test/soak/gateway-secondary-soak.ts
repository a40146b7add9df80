// Soak of the gateway's secondary paths: per phase, sending domains created, verified against a
// DNS server that answers some names and never answers others, and deleted; webhook test sends
// to receivers that hang, reset or answer; received-mail lists. Run: pnpm exec tsx test/soak/gateway-secondary-soak.ts
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestDatabase } from '../support/databases';
import { DnsServer } from '../support/dns-server';
import { freePort } from '../support/free-port';
import { signUp, testEnv } from '../support/gateway';
import { apiClient } from '../support/http';
import { phases, Probed } from './harness';

const PHASES = Number(process.env.PHASES ?? 4);
const ROUNDS = Number(process.env.ROUNDS ?? 20);

async function main() {
  const receiver = createServer((req, res) => {
    req.resume();
    if (req.url === '/hang') return;
    if (req.url === '/reset') return void req.socket.destroy();
    res.end('ok');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const rport = (receiver.address() as AddressInfo).port;
  const dns = await new DnsServer({ zone: {}, silent: Array.from({ length: PHASES * ROUNDS }, (_, i) => `_dmarc.s${i}.soak.test`) }).start();
  const database = await createTestDatabase('soakgwsecondary');
  const port = await freePort();
  const env = testEnv(database, { API_PORT: String(port), ALLOW_SIGNUP: 'true', ALLOW_PRIVATE_NETWORKS: 'true', DNS_SERVERS: dns.address, WEBHOOK_TIMEOUT_SECONDS: '2', LOG_LEVEL: 'warn' });
  const gateway = await Probed.start('gateway', { ...env, LOG_LEVEL: 'info' }, 'gateway listening');
  const api = apiClient(`http://127.0.0.1:${port}`);
  const owner = await signUp(api);
  const hooks: string[] = [];
  for (const path of ['/ok', '/hang', '/reset']) hooks.push((await owner.as.post('/webhooks', { url: `http://127.0.0.1:${rport}${path}`, events: ['email.delivered'] })).body.id);
  let i = 0;
  try {
    await phases('gateway-secondary', [gateway], PHASES, async () => {
      const counts: Record<string, number> = {};
      const tally = (k: string) => {
        counts[k] = (counts[k] ?? 0) + 1;
      };
      for (let r = 0; r < ROUNDS; r++, i++) {
        const d = await owner.as.post('/domains', { name: `s${i % 10 === 0 ? i : i}.soak.test` });
        tally(`domain:${d.status}`);
        const jobs: Promise<unknown>[] = [
          d.status === 201 ? owner.as.post(`/domains/${d.body.id}/verify`).then((x) => tally(`verify:${x.status}`)) : Promise.resolve(),
          ...hooks.map((h) => owner.as.post(`/webhooks/${h}/test`).then((x) => tally(`test:${x.status}`))),
          owner.as.get('/emails/received?limit=10').then((x) => tally(`received:${x.status}`)),
          owner.as.get(`/webhooks/${hooks[1]}/attempts`).then((x) => tally(`attempts:${x.status}`)),
        ];
        await Promise.all(jobs);
        if (d.status === 201) tally(`undomain:${(await owner.as.delete(`/domains/${d.body.id}`)).status}`);
      }
      return Object.entries(counts).map(([k, v]) => `${k}=${v}`).join(' ');
    });
    gateway.printProblems();
  } finally {
    await gateway.stop();
    receiver.closeAllConnections();
    receiver.close();
    await dns.stop();
    await database.drop();
  }
}
void main().then(() => process.exit(0), (err: unknown) => { console.error(err); process.exit(1); });
