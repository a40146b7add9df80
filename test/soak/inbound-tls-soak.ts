// Soak of the MX's STARTTLS: per phase, clients that complete TLS and send a message, leave
// mid-handshake, send garbage instead of a ClientHello, or go idle after STARTTLS.
// Run: pnpm exec tsx test/soak/inbound-tls-soak.ts
import { mkdtempSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { createPool } from '@mailroom/db';
import { seedProject } from '../../services/inbound-smtp/test/smtp-support';
import { selfSignedCertificate } from '../support/certificate';
import { createTestDatabase } from '../support/databases';
import { freePort } from '../support/free-port';
import { testEnv } from '../support/gateway';
import { phases, Probed, sleep } from './harness';

const PHASES = Number(process.env.PHASES ?? 4);
const CLIENTS = Number(process.env.CLIENTS ?? 60);

/** Plain SMTP up to STARTTLS's 220; then `after` takes the socket. */
function toStartTls(port: number, after: (s: Socket) => Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    const lines = ['EHLO c', 'STARTTLS'];
    let i = 0;
    let handed = false;
    s.on('error', () => resolve());
    s.on('close', () => resolve());
    s.setEncoding('latin1');
    s.on('data', (c: string) => {
      if (handed || !c.endsWith('\r\n') || /^\d{3}-/m.test(c.split('\r\n').slice(-2, -1)[0] ?? '')) return;
      if (i < lines.length) return void s.write(`${lines[i++]}\r\n`);
      handed = true;
      s.removeAllListeners('data');
      void after(s).finally(() => {
        s.destroy();
        resolve();
      });
    });
  });
}

function tlsMessage(s: Socket): Promise<void> {
  return new Promise((resolve) => {
    const t = tlsConnect({ socket: s, rejectUnauthorized: false, servername: 'mx.test' });
    const lines = ['EHLO c', 'MAIL FROM:<a@x.test>', 'RCPT TO:<tls@acme.test>', 'DATA', 'Subject: tls\r\n\r\nhi\r\n.', 'QUIT'];
    let i = 0;
    t.on('secureConnect', () => t.write(`${lines[i++]}\r\n`));
    t.setEncoding('latin1');
    t.on('data', (c: string) => {
      if (!c.endsWith('\r\n') || /^\d{3}-/m.test(c.split('\r\n').slice(-2, -1)[0] ?? '')) return;
      if (i < lines.length) t.write(`${lines[i++]}\r\n`);
    });
    t.on('error', () => resolve());
    t.on('close', () => resolve());
  });
}

async function main() {
  const { certFile, keyFile } = selfSignedCertificate(mkdtempSync(join(tmpdir(), 'soak-tls-')), 'mx.test');
  const database = await createTestDatabase('soaktls');
  const pool = createPool(database.url, 2);
  const port = await freePort();
  const env = testEnv(database, { SMTP_PORT: String(port), SMTP_TLS_CERT_FILE: certFile, SMTP_TLS_KEY_FILE: keyFile, SMTP_IDLE_TIMEOUT_SECONDS: '2', DNS_SERVERS: '127.0.0.1:9', LOG_LEVEL: 'info' });
  const mx = await Probed.start('inbound-smtp', env, 'inbound SMTP started');
  await seedProject(pool, ['tls@acme.test']);
  try {
    await phases('inbound-tls', [mx], PHASES, async () => {
      for (let c = 0; c < CLIENTS; c += 4) {
        await Promise.all([
          toStartTls(port, tlsMessage),
          // Half a ClientHello, then gone.
          toStartTls(port, async (s) => {
            const t = tlsConnect({ socket: s, rejectUnauthorized: false });
            t.on('error', () => undefined);
            await sleep(5);
            t.destroy();
          }),
          toStartTls(port, async (s) => {
            s.write('this is not TLS at all\r\n');
            await sleep(200);
          }),
          // Silent after STARTTLS: the idle timeout ends it.
          toStartTls(port, async () => {
            await sleep(3000);
          }),
        ]);
      }
      const { rows } = await pool.query<{ n: number }>({ text: 'SELECT count(*)::int AS n FROM received_emails' });
      return `stored so far ${rows[0]?.n}`;
    });
  } finally {
    await mx.stop();
    await pool.end();
    await database.drop();
  }
}
void main().then(() => process.exit(0), (err: unknown) => { console.error(err); process.exit(1); });
