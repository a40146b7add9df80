// Soak of the tracking service: per phase, new emails and new tokens (opens, clicks to distinct
// URLs), many client addresses (X-Forwarded-For, trusted) and user agents (browsers, bots),
// forged and truncated tokens, signed tokens for emails that do not exist, HEAD and POST,
// keep-alive, and clients that disconnect mid-head or before the answer.
// Run: pnpm exec tsx test/soak/tracking-soak.ts
import { request, Agent } from 'node:http';
import { connect } from 'node:net';
import { newId } from '@mailroom/core';
import { createPool } from '@mailroom/db';
import { insertTrackedEmail, tokens } from '../../services/tracking/test/support';
import { createTestDatabase } from '../support/databases';
import { freePort } from '../support/free-port';
import { testEnv } from '../support/gateway';
import { phases, Probed, sleep } from './harness';

const PHASES = Number(process.env.PHASES ?? 4);
const EMAILS = Number(process.env.EMAILS ?? 40);
const UAS = ['Mozilla/5.0 (X11; Linux x86_64) Firefox/126.0', 'Mozilla/5.0 (compatible; Googlebot/2.1)', 'curl/8.0', '', 'Mozilla/5.0 (iPhone) Mobile Safari', 'x'.repeat(2000)];
const agent = new Agent({ keepAlive: true, maxSockets: 8 });

function get(port: number, path: string, headers: Record<string, string>, method = 'GET', abort = false): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(-1));
    if (abort) setImmediate(() => { req.destroy(); resolve(-2); });
    req.end();
  });
}

function rawHalf(port: number, path: string): Promise<void> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.on('error', () => resolve());
    s.on('connect', () => {
      s.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nUser-Agent: half`);
      setTimeout(() => { s.destroy(); resolve(); }, 100);
    });
  });
}

async function main() {
  const database = await createTestDatabase('soaktracking');
  const pool = createPool(database.url, 4);
  const port = await freePort();
  const env = testEnv(database, { TRACKING_PORT: String(port), TRACKING_TRUST_PROXY: 'true', TRACKING_MIN_CLICK_SECONDS: '0', LOG_LEVEL: 'info' });
  const tracking = await Probed.start('tracking', env, 'tracking started');
  let ip = 0;
  try {
    await phases('tracking', [tracking], PHASES, async (n) => {
      const counts: Record<string, number> = {};
      const tally = (k: string) => {
        counts[k] = (counts[k] ?? 0) + 1;
      };
      for (let e = 0; e < EMAILS; e++) {
        const { emailId, recipientId } = await insertTrackedEmail(pool, `P${n}-${e}`);
        const open = `/o/${tokens.sign({ kind: 'open', emailId, recipientId })}`;
        const clicks = Array.from({ length: 5 }, (_, i) => `/c/${tokens.sign({ kind: 'click', emailId, recipientId, url: `https://acme.example/p${n}/${e}/${i}?q=${i}` })}`);
        const ghost = `/o/${tokens.sign({ kind: 'open', emailId: newId('email'), recipientId: newId('recipient') })}`;
        const jobs: Promise<unknown>[] = [];
        for (let k = 0; k < 10; k++) {
          ip++;
          const headers = { 'user-agent': UAS[k % UAS.length] as string, 'x-forwarded-for': `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}` };
          jobs.push(get(port, open, headers).then((s) => tally(`open:${s}`)));
          jobs.push(get(port, clicks[k % 5] as string, headers).then((s) => tally(`click:${s}`)));
        }
        jobs.push(get(port, ghost, {}).then((s) => tally(`ghost:${s}`)));
        jobs.push(get(port, `${open.slice(0, -5)}`, {}).then((s) => tally(`forged:${s}`)));
        jobs.push(get(port, `/o/${'A'.repeat(300)}`, {}).then((s) => tally(`junk:${s}`)));
        jobs.push(get(port, open, {}, 'HEAD').then((s) => tally(`head:${s}`)));
        jobs.push(get(port, open, {}, 'POST').then((s) => tally(`post:${s}`)));
        jobs.push(get(port, '/nothing', {}).then((s) => tally(`other:${s}`)));
        jobs.push(get(port, open, { 'user-agent': 'aborter' }, 'GET', true).then((s) => tally(`abort:${s}`)));
        jobs.push(rawHalf(port, open).then(() => tally('half')));
        await Promise.all(jobs);
        await sleep(20);
      }
      return Object.entries(counts).map(([k, v]) => `${k}=${v}`).join(' ');
    });
    tracking.printProblems();
  } finally {
    agent.destroy();
    await tracking.stop();
    await pool.end();
    await database.drop();
  }
}
void main().then(() => process.exit(0), (err: unknown) => { console.error(err); process.exit(1); });
