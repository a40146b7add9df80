// Soak of the MX (inbound-smtp, role all) as a process: per phase, new routes and new sender
// domains (SPF, DMARC and DKIM lookups answered, NXDOMAIN or never answered), full messages from
// many client addresses (127.0.0.x), unknown recipients, clients that leave mid-DATA, after RCPT,
// pipelined and cut, idle until the timeout, oversized SIZE, junk commands, RSET.
// Run: pnpm exec tsx test/soak/inbound-soak.ts
import { connect } from 'node:net';
import { createPool } from '@mailroom/db';
import { createTransport } from 'nodemailer';
import { seedProject } from '../../services/inbound-smtp/test/smtp-support';
import { createTestDatabase } from '../support/databases';
import { DnsServer, type DnsZone } from '../support/dns-server';
import { freePort } from '../support/free-port';
import { testEnv } from '../support/gateway';
import { phases, Probed, sleep } from './harness';

const PHASES = Number(process.env.PHASES ?? 4);
const MESSAGES = Number(process.env.MESSAGES ?? 60);

/** Writes `lines` (each followed by CRLF, paced by replies unless pipelined), then leaves as `end` says. */
function dialogue(port: number, local: string, lines: string[], end: 'destroy' | 'wait', pipelined = false, waitMs = 0): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ port, host: '127.0.0.1', localAddress: local });
    let got = '';
    let i = 0;
    const finish = () => {
      s.destroy();
      resolve(got);
    };
    s.on('error', finish);
    s.on('close', finish);
    s.setEncoding('latin1');
    s.on('data', (chunk: string) => {
      got += chunk;
      if (pipelined) {
        if (i === 0) {
          s.write(lines.map((l) => `${l}\r\n`).join(''));
          i = lines.length;
          if (end === 'destroy') setImmediate(finish);
        }
        return;
      }
      if (!/\r\n$/.test(chunk) || /^\d{3}-/m.test(chunk.split('\r\n').slice(-2, -1)[0] ?? '')) return;
      if (i < lines.length) s.write(`${lines[i++]}\r\n`);
      else if (end === 'destroy') finish();
      else if (waitMs) setTimeout(finish, waitMs);
    });
  });
}

async function main() {
  const zone: DnsZone = {};
  const silent: string[] = [];
  for (let p = 1; p <= PHASES; p++) {
    for (let i = 0; i < MESSAGES; i++) {
      const d = `s${i}.p${p}.sender.test`;
      if (i % 5 === 0) silent.push(d, `_dmarc.${d}`);
      else if (i % 5 === 1) continue;
      else {
        zone[d] = { TXT: ['v=spf1 ip4:127.0.0.0/8 -all'], A: ['127.0.0.1'] };
        zone[`_dmarc.${d}`] = { TXT: ['v=DMARC1; p=reject'] };
        zone[`sel._domainkey.${d}`] = { TXT: ['v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA'] };
      }
    }
  }
  const dns = await new DnsServer({ zone, silent }).start();
  const database = await createTestDatabase('soakinbound');
  const pool = createPool(database.url, 2);
  const port = await freePort();
  const env = testEnv(database, { SMTP_PORT: String(port), DNS_SERVERS: dns.address, SMTP_IDLE_TIMEOUT_SECONDS: '2', INBOUND_MAX_MESSAGE_BYTES: '1000000', INBOUND_MAX_BUFFERED_BYTES: '2000000', BOUNCE_DOMAIN: 'bounces.mailroom.test', LOG_LEVEL: 'info' });
  const mx = await Probed.start('inbound-smtp', env, 'inbound SMTP started');
  let addr = 0;
  const local = () => `127.0.0.${10 + (addr++ % 240)}`;
  try {
    await phases('inbound', [mx], PHASES, async (n) => {
      const routes = Array.from({ length: 10 }, (_, i) => `r${i}.p${n}@acme.test`);
      await seedProject(pool, routes);
      const counts: Record<string, number> = {};
      const tally = (k: string) => {
        counts[k] = (counts[k] ?? 0) + 1;
      };
      for (let i = 0; i < MESSAGES; i += 4) {
        const jobs: Promise<unknown>[] = [];
        for (let j = i; j < i + 4 && j < MESSAGES; j++) {
          const d = `s${j}.p${n}.sender.test`;
          const raw = `From: Ann <ann@${d}>\r\nTo: ${routes[j % 10]}\r\nSubject: soak ${n}/${j}\r\nMessage-ID: <${n}.${j}@${d}>\r\nDKIM-Signature: v=1; a=rsa-sha256; d=${d}; s=sel; h=from:to:subject; bh=AAAA; b=AAAA\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\n${'hello '.repeat(200)}\r\n--b\r\nContent-Type: application/octet-stream; name=a.bin\r\nContent-Transfer-Encoding: base64\r\n\r\n${Buffer.alloc(6000, j).toString('base64').replace(/.{76}/g, '$&\r\n')}\r\n--b--\r\n`;
          const transport = createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, localAddress: local() } as never);
          jobs.push(
            transport
              .sendMail({ envelope: { from: `bounce@${d}`, to: [routes[j % 10] as string, `nobody${j}@acme.test`] }, raw })
              .then(() => tally('sent'), (e: Error) => tally(`sendErr:${e.message.slice(0, 20)}`))
              .finally(() => transport.close()),
          );
          jobs.push(dialogue(port, local(), ['EHLO c', `MAIL FROM:<a@${d}>`, `RCPT TO:<${routes[0]}>`, 'DATA', 'Subject: cut\r\n\r\nhalf a mess'], 'destroy').then(() => tally('cutData')));
          jobs.push(dialogue(port, local(), ['EHLO c', `MAIL FROM:<a@${d}>`, `RCPT TO:<${routes[1]}>`], 'destroy').then(() => tally('cutRcpt')));
          jobs.push(dialogue(port, local(), ['EHLO c', `MAIL FROM:<a@${d}>`, `RCPT TO:<${routes[2]}>`, `RCPT TO:<x${j}@acme.test>`, 'DATA'], 'destroy', true).then(() => tally('pipelinedCut')));
          jobs.push(dialogue(port, local(), ['EHLO c', 'MAIL FROM:<a@x.test> SIZE=99999999', 'FOO', 'RSET', 'NOOP', `RCPT TO:<${routes[3]}>`, 'QUIT'], 'wait').then(() => tally('junk')));
          if (j % 8 === 0) jobs.push(dialogue(port, local(), ['EHLO idle'], 'wait', false, 5000).then((g) => tally(/421/.test(g) ? 'idle421' : 'idleNo421')));
        }
        await Promise.all(jobs);
      }
      // Wait for processing of this phase's messages.
      const deadline = Date.now() + 120_000;
      let unprocessed = -1;
      while (Date.now() < deadline) {
        unprocessed = Number((await pool.query({ text: 'SELECT count(*)::int AS n FROM received_emails WHERE processed_at IS NULL' })).rows[0].n);
        if (unprocessed === 0) break;
        await sleep(1000);
      }
      return `${Object.entries(counts).map(([k, v]) => `${k}=${v}`).join(' ')} unprocessed=${unprocessed}`;
    });
    mx.printProblems();
  } finally {
    await mx.stop();
    await pool.end();
    await dns.stop();
    await database.drop();
  }
}
void main().then(() => process.exit(0), (err: unknown) => { console.error(err); process.exit(1); });
