import { createPool } from '@mailroom/db';
import { createTransport } from 'nodemailer';
import { TcpProxy } from '../../../test/support/tcp-proxy';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { freePort } from '../../../test/support/free-port';
import { testEnv } from '../../../test/support/gateway';
import { ServiceProcess } from '../../../test/support/service-process';
import { message, RawSmtp, seedProject, startTestMx, storedRows } from './smtp-support';

describe('the MX stopping, and without PostgreSQL', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('smtpstop');
  });
  afterAll(() => database.drop());

  test('when stop() is called while a message is in DATA, then new connections get 421 4.3.2, idle ones are closed, and the message is stored and gets 250', async () => {
    const t = await startTestMx({ database, drainTimeoutMs: 5_000 });
    try {
      const { projectId } = await seedProject(t.pool, ['support@acme.test']);
      const idle = await RawSmtp.open(t.mx.port);
      expect(await idle.reply()).toMatch(/^220 /);
      const sending = await RawSmtp.open(t.mx.port);
      await sending.startMessage('ann@example.test', ['support@acme.test']);
      sending.write('Subject: in flight\r\n\r\nfirst half, ');

      const stopped = t.mx.stop();
      expect(await idle.reply()).toMatch(/^421 4\.3\.2 /);
      const late = await RawSmtp.open(t.mx.port);
      expect(await late.reply()).toMatch(/^421 4\.3\.2 /);
      expect(await late.closedByServer()).toBe(true);

      // Stored before the backends close: count while the pool is still open.
      sending.write('second half\r\n.\r\n');
      const reply = await sending.reply();
      const rows = await storedRows(t.pool);
      expect(reply).toMatch(/^250 2\.6\.0 Ok: queued as inb_/);
      expect(await sending.reply()).toMatch(/^421 4\.3\.2 /);
      await stopped;
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ project_id: projectId, raw: Buffer.from('Subject: in flight\r\n\r\nfirst half, second half\r\n') });
    } finally {
      await t.close();
    }
  });

  test('when Redis is unreachable, then mail is still taken, and SIGTERM still ends the process (what it did not process is left to the reconciler)', async () => {
    const proxy = await new TcpProxy('127.0.0.1', 6379).start();
    const port = await freePort();
    const env = testEnv(database, { SMTP_PORT: String(port), REDIS_URL: `redis://127.0.0.1:${proxy.port}`, LOG_LEVEL: 'info' });
    const pool = createPool(database.url, 1);
    const mx = await ServiceProcess.start('inbound-smtp', env, 'inbound SMTP started');
    try {
      await pool.query({ text: 'DELETE FROM received_emails' });
      await seedProject(pool, ['redis@acme.test']);
      await proxy.stop();
      const transport = createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
      const info = await transport.sendMail({ envelope: { from: 'ann@example.test', to: ['redis@acme.test'] }, raw: message('Redis down') });
      expect(info.response).toMatch(/^250 /);
      transport.close();
      // BullMQ's workers wait for Redis without end when closed during an outage; stop() leaves them.
      mx.kill('SIGTERM');
      expect(await mx.waitForExit()).toBe(0);
      const rows = await storedRows(pool);
      expect(rows.map((r) => [r.raw.toString(), r.processed_at])).toEqual([[message('Redis down').toString(), null]]);
    } finally {
      mx.kill('SIGKILL');
      await pool.end();
      await proxy.stop();
    }
  });

  test('when PostgreSQL becomes unreachable, then RCPT and DATA get 451 4.3.0 and nothing is stored; once it is back, mail is accepted', async () => {
    const proxy = await new TcpProxy('127.0.0.1', 5432).start();
    const t = await startTestMx({ database, env: { DATABASE_URL: `postgresql://postgres@127.0.0.1:${proxy.port}/${database.name}` } });
    try {
      await t.pool.query({ text: 'DELETE FROM received_emails' });
      await seedProject(t.pool, ['sales@acme.test', 'billing@acme.test']);
      const smtp = await RawSmtp.open(t.mx.port);
      await smtp.startMessage('ann@example.test', ['sales@acme.test']);
      smtp.write(message('While down'));
      await proxy.stop();
      expect(await smtp.command('.')).toMatch(/^451 4\.3\.0 /);
      expect(await smtp.command('MAIL FROM:<ann@example.test>')).toMatch(/^250 /);
      // A route not looked up yet (found routes are cached for a few seconds).
      expect(await smtp.command('RCPT TO:<billing@acme.test>')).toMatch(/^451 4\.3\.0 /);
      smtp.end();

      // Back on the same port.
      await proxy.start();
      const transport = createTransport({ host: '127.0.0.1', port: t.mx.port, secure: false, ignoreTLS: true });
      const info = await transport.sendMail({ envelope: { from: 'ann@example.test', to: ['sales@acme.test'] }, raw: message('After') });
      expect(info.response).toMatch(/^250 /);
      const rows = await storedRows(t.pool);
      expect(rows.map((r) => r.raw.toString().includes('Subject: After'))).toEqual([true]);
    } finally {
      await t.close();
      await proxy.stop();
    }
  });
});
