// Soak of the gateway as a process: per phase, a fixed mix of API traffic (sign-ups, logins good
// and bad, sends, lists, key and webhook churn with revocations, invalid and malformed tokens,
// 404s, bad JSON, oversized and aborted bodies, clients that leave before the answer, slowloris
// heads). Run: pnpm exec tsx test/soak/gateway-soak.ts
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { createTestDatabase } from '../support/databases';
import { freePort } from '../support/free-port';
import { createKey, signUp, testEnv } from '../support/gateway';
import { apiClient } from '../support/http';
import { phases, Probed, sleep } from './harness';

const PHASES = Number(process.env.PHASES ?? 4);
const ROUNDS = Number(process.env.ROUNDS ?? 40);

function raw(port: number, data: string, opts: { abortAfterMs?: number; trickle?: boolean } = {}): Promise<void> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    const done = () => {
      s.destroy();
      resolve();
    };
    s.on('error', done);
    s.on('close', done);
    s.on('data', () => undefined);
    s.on('connect', () => {
      if (opts.trickle) {
        let i = 0;
        const t = setInterval(() => {
          if (i >= data.length || s.destroyed) return clearInterval(t);
          s.write(data[i++] as string);
        }, 20);
      } else s.write(data);
      if (opts.abortAfterMs !== undefined) setTimeout(done, opts.abortAfterMs);
    });
  });
}

async function main() {
  const database = await createTestDatabase('soakgateway');
  const port = await freePort();
  const env = testEnv(database, { API_PORT: String(port), ALLOW_SIGNUP: 'true', ALLOW_PRIVATE_NETWORKS: 'true', LOG_LEVEL: 'warn' });
  const gateway = await Probed.start('gateway', { ...env, LOG_LEVEL: 'info' }, `${port}`);
  const base = `http://127.0.0.1:${port}`;
  const api = apiClient(base);
  try {
    await phases('gateway', [gateway], PHASES, async () => {
      const counts: Record<string, number> = {};
      const tally = (s: string) => {
        counts[s] = (counts[s] ?? 0) + 1;
      };
      for (let r = 0; r < ROUNDS; r++) {
        const owner = await signUp(api);
        const key = await createKey(owner.as);
        const app = api.as({ token: key.token });
        const jobs: Promise<unknown>[] = [
          api.post('/auth/login', { email: owner.email, password: 'correct horse battery' }).then((x) => tally(`login:${x.status}`)),
          api.post('/auth/login', { email: owner.email, password: 'wrong' }).then((x) => tally(`badlogin:${x.status}`)),
          app.post('/emails', { from: 'a@acme.test', to: `r${r}@example.test`, subject: 'hi', html: '<a href="https://x.test">x</a>' }).then((x) => tally(`send:${x.status}`)),
          app.post('/emails/batch', Array.from({ length: 5 }, (_, i) => ({ from: 'a@acme.test', to: `b${i}@example.test`, subject: 'b', text: 't' }))).then((x) => tally(`batch:${x.status}`)),
          app.get('/emails?limit=20').then((x) => tally(`list:${x.status}`)),
          app.get('/stats').then((x) => tally(`stats:${x.status}`)),
          app.get(`/emails/em_${randomBytes(8).toString('hex')}`).then((x) => tally(`get404:${x.status}`)),
          api.as({ token: `mr_${randomBytes(32).toString('base64url')}` }).get('/emails').then((x) => tally(`badtoken:${x.status}`)),
          api.as({ token: 'garbage' }).get('/emails').then((x) => tally(`garbage:${x.status}`)),
          api.as({ session: randomBytes(20).toString('hex'), project: owner.projectId }).get('/projects').then((x) => tally(`badsession:${x.status}`)),
          owner.as.get('/projects').then((x) => tally(`projects:${x.status}`)),
          app.request('POST', '/emails', { rawBody: '{"from": ', headers: { 'content-type': 'application/json' } }).then((x) => tally(`badjson:${x.status}`)),
          api.get(`/no/such/${r}`).then((x) => tally(`nosuch:${x.status}`)),
          api.get('/openapi.json').then((x) => tally(`openapi:${x.status}`)),
          owner.as.post('/webhooks', { url: r % 2 ? `https://hooks${r}.example.com/x` : `http://127.0.0.1:9/h${r}`, events: ['email.delivered'] }).then(async (x) => {
            tally(`hook:${x.status}`);
            if (x.status === 201) tally(`unhook:${(await owner.as.delete(`/webhooks/${x.body.id}`)).status}`);
          }),
          // Aborted body, a client gone before the answer, a slow head that gives up, an oversized declared body.
          raw(port, `POST /emails HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key.token}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"from":"a@acme.test",`, { abortAfterMs: 50 }),
          raw(port, `GET /emails HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key.token}\r\n\r\n`, { abortAfterMs: 1 }),
          raw(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nUser-Agent: slow`, { trickle: true, abortAfterMs: 400 }),
          raw(port, `POST /emails HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key.token}\r\nContent-Type: application/json\r\nContent-Length: 999999999\r\n\r\n`, { abortAfterMs: 200 }),
        ];
        await Promise.all(jobs);
        tally(`revoke:${(await owner.as.delete(`/api-keys/${key.id}`)).status}`);
        // The revoked key is refused afterwards.
        tally(`revoked:${(await app.get('/emails')).status}`);
        if (r % 10 === 0) await sleep(50);
      }
      return Object.entries(counts).map(([k, v]) => `${k}:${v}`).join(' ');
    });
    gateway.printProblems();
  } finally {
    await gateway.stop();
    await database.drop();
  }
}
void main().then(() => process.exit(0), (err: unknown) => { console.error(err); process.exit(1); });
