// Probe: does the MX's message memory (mailroom_inbound_smtp_buffered_bytes) return to 0 after
// clients leave mid-DATA, time out mid-DATA, exceed SIZE, or are refused? Run: pnpm exec tsx test/soak/inbound-budget-probe.ts
import { connect } from 'node:net';
import { createPool } from '@mailroom/db';
import { seedProject } from '../../services/inbound-smtp/test/smtp-support';
import { createTestDatabase } from '../support/databases';
import { freePort } from '../support/free-port';
import { testEnv } from '../support/gateway';
import { Probed, sleep } from './harness';

function session(port: number, steps: string[], body: Buffer | null, end: 'destroy' | 'idle' | 'finish'): Promise<string> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    let got = '';
    let i = 0;
    const done = () => { s.destroy(); resolve(got); };
    s.setEncoding('latin1');
    s.on('error', done);
    s.on('close', done);
    s.on('data', (c: string) => {
      got += c;
      if (!c.endsWith('\r\n') || /^\d{3}-/m.test(c.split('\r\n').slice(-2, -1)[0] ?? '')) return;
      if (i < steps.length) return void s.write(`${steps[i++]}\r\n`);
      if (i++ === steps.length && body) {
        s.write(body);
        if (end === 'destroy') setTimeout(done, 50);
        if (end === 'finish') s.write('\r\n.\r\nQUIT\r\n');
        // 'idle': wait for the server's idle timeout
      }
    });
  });
}

async function main() {
  const database = await createTestDatabase('soakbudget');
  const pool = createPool(database.url, 2);
  const [port, ops] = [await freePort(), await freePort()];
  const env = testEnv(database, { SMTP_PORT: String(port), OPS_PORT: String(ops), SMTP_IDLE_TIMEOUT_SECONDS: '2', INBOUND_MAX_MESSAGE_BYTES: '1000000', INBOUND_MAX_BUFFERED_BYTES: '3000000', LOG_LEVEL: 'info' });
  const mx = await Probed.start('inbound-smtp', env, 'inbound SMTP started');
  const gauge = async () => Number(/^mailroom_inbound_smtp_buffered_bytes (\d+)/m.exec(await (await fetch(`http://127.0.0.1:${ops}/metrics`)).text())?.[1]);
  await seedProject(pool, ['b@acme.test']);
  const big = Buffer.from(`Subject: x\r\n\r\n${'y'.repeat(76)}\r\n`.repeat(5000));
  const head = ['EHLO c', 'MAIL FROM:<a@x.test>', 'RCPT TO:<b@acme.test>', 'DATA'];
  try {
    for (const [label, run] of [
      ['cut mid-DATA', () => session(port, head, big, 'destroy')],
      ['idle mid-DATA', () => session(port, head, big.subarray(0, 200_000), 'idle')],
      ['over SIZE (no SIZE=)', () => session(port, head, Buffer.concat([big, big, big]), 'finish')],
      ['declared SIZE too big', () => session(port, ['EHLO c', 'MAIL FROM:<a@x.test> SIZE=2900000', 'RCPT TO:<b@acme.test>', 'DATA'], big, 'destroy')],
      ['complete', () => session(port, head, big, 'finish')],
    ] as const) {
      const replies = await Promise.all(Array.from({ length: 5 }, run));
      await sleep(3000);
      console.log(`${label}: gauge=${await gauge()} last reply: ${JSON.stringify(replies[0]?.split('\r\n').filter(Boolean).slice(-2))}`);
    }
    console.log(JSON.stringify(await mx.sample()));
  } finally {
    await mx.stop();
    await pool.end();
    await database.drop();
  }
}
void main().then(() => process.exit(0), (err: unknown) => { console.error(err); process.exit(1); });
