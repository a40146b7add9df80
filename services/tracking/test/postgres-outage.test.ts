import { createPool, type Pool } from '@mailroom/db';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { testEnv } from '../../../test/support/gateway';
import { ServiceProcess } from '../../../test/support/service-process';
import { TcpProxy } from '../../../test/support/tcp-proxy';
import { until } from '../../../test/support/until';
import { get, insertTrackedEmail, tokens } from './support';

describe('the tracking process when PostgreSQL goes away', () => {
  let database: TestDatabase;
  let pool: Pool;
  let proxy: TcpProxy;
  let service: ServiceProcess | null = null;
  beforeAll(async () => {
    database = await createTestDatabase('trkoutage');
    pool = createPool(database.url, 3);
    proxy = await new TcpProxy('127.0.0.1', 5432).start();
  });
  afterAll(async () => {
    await service?.stop();
    await proxy.stop();
    await pool.end();
    await database.drop();
  });

  test('when the connection drops in the middle of a batch write, then the process keeps running and writes every event once PostgreSQL is back', async () => {
    const { emailId, recipientId } = await insertTrackedEmail(pool, 'Outage');
    const viaProxy = { ...database, url: database.url.replace(':5432/', `:${proxy.port}/`) };
    service = await ServiceProcess.start('tracking', testEnv(viaProxy, { TRACKING_PORT: '0', LOG_LEVEL: 'info' }), 'tracking started');
    const started = service.output.find((line) => line.includes('tracking started')) as string;
    const port = (JSON.parse(started) as { port: number }).port;
    const url = `http://127.0.0.1:${port}/o/${tokens.sign({ kind: 'open', emailId, recipientId })}`;

    // The email's row is held, so the tracking service's batch waits inside its transaction.
    const holder = await pool.connect();
    await holder.query('BEGIN');
    await holder.query({ text: 'SELECT id FROM emails WHERE id = $1 FOR UPDATE', values: [emailId] });
    const first = await Promise.all(Array.from({ length: 5 }, () => get(url)));
    expect(first.every((s) => s === 200)).toBe(true);
    await until(
      async () => (await pool.query({ text: "SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'", values: [database.name] })).rowCount === 1,
      10_000,
      'the batch to wait on the row lock',
    );
    // PostgreSQL "goes away" under the open transaction.
    await proxy.stop();
    await holder.query('ROLLBACK');
    holder.release();
    const during = await Promise.all(Array.from({ length: 5 }, () => get(url)));
    expect(during.every((s) => s === 200)).toBe(true);
    // A few failed writes later the process is still up.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(service.child.exitCode).toBeNull();

    await proxy.start();
    const count = async () =>
      (await pool.query<{ n: number }>({ text: "SELECT count(*)::int AS n FROM email_events WHERE email_id = $1 AND type = 'email.opened'", values: [emailId] })).rows[0]?.n;
    await until(async () => (await count()) === 10, 15_000, 'all ten opens to be written');
    service.kill('SIGTERM');
    expect(await service.waitForExit()).toBe(0);
    expect(await count()).toBe(10);
    service = null;
  });
});
