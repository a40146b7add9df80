// Soak of one long SMTP session: per phase, N messages (with unknown recipients between them and
// RSETs) over a single connection kept open across phases. Run: pnpm exec tsx test/soak/inbound-long-session-soak.ts
import { connect, type Socket } from 'node:net';
import { createPool } from '@mailroom/db';
import { seedProject } from '../../services/inbound-smtp/test/smtp-support';
import { createTestDatabase } from '../support/databases';
import { freePort } from '../support/free-port';
import { testEnv } from '../support/gateway';
import { phases, Probed } from './harness';

const PHASES = Number(process.env.PHASES ?? 4);
const MESSAGES = Number(process.env.MESSAGES ?? 300);

/** Sends one command (or a whole DATA body) and resolves with the next complete reply. */
function replyAfter(socket: Socket, text: string): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    const onData = (c: Buffer) => {
      got += c.toString('latin1');
      const last = got.split('\r\n').filter(Boolean).at(-1) ?? '';
      if (got.endsWith('\r\n') && /^\d{3} /.test(last)) {
        socket.off('data', onData);
        resolve(got);
      }
    };
    socket.on('data', onData);
    if (text) socket.write(text);
  });
}

async function main() {
  const database = await createTestDatabase('soaklongsession');
  const pool = createPool(database.url, 2);
  const port = await freePort();
  const env = testEnv(database, { SMTP_PORT: String(port), SMTP_IDLE_TIMEOUT_SECONDS: '600', DNS_SERVERS: '127.0.0.1:9', LOG_LEVEL: 'info' });
  const mx = await Probed.start('inbound-smtp', env, 'inbound SMTP started');
  await seedProject(pool, ['long@acme.test']);
  const socket = connect(port, '127.0.0.1');
  await replyAfter(socket, '');
  await replyAfter(socket, 'EHLO long\r\n');
  let accepted = 0;
  try {
    await phases('long-session', [mx], PHASES, async (n) => {
      for (let i = 0; i < MESSAGES; i++) {
        await replyAfter(socket, 'MAIL FROM:<a@x.test>\r\n');
        await replyAfter(socket, `RCPT TO:<nobody${i}@acme.test>\r\n`);
        await replyAfter(socket, 'RCPT TO:<long@acme.test>\r\n');
        await replyAfter(socket, 'DATA\r\n');
        if (/^250 /m.test(await replyAfter(socket, `Subject: ${n}/${i}\r\nMessage-ID: <${n}.${i}@x.test>\r\n\r\n${'body '.repeat(100)}\r\n.\r\n`))) accepted++;
        if (i % 10 === 0) await replyAfter(socket, 'RSET\r\n');
      }
      return `accepted so far ${accepted}`;
    });
  } finally {
    socket.destroy();
    await mx.stop();
    await pool.end();
    await database.drop();
  }
}
void main().then(() => process.exit(0), (err: unknown) => { console.error(err); process.exit(1); });
