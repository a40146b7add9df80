import { execFileSync } from 'node:child_process';
import { createTestDatabase, type TestDatabase, withAdminClient } from '../../../test/support/databases';
import { createDatabase, type Database } from './client';
import { createPool, type Pool, withTryLock } from './pool';

// A server whose `timezone` is not UTC (initdb copies the host's zone): Tokyo, UTC+9, no daylight saving.
let db: TestDatabase;
let pool: Pool;
let prisma: Database;

beforeAll(async () => {
  db = await createTestDatabase('pool_tz');
  await withAdminClient((client) => client.query(`ALTER DATABASE "${db.name}" SET timezone = 'Asia/Tokyo'`));
  pool = createPool(db.url, 2);
  prisma = createDatabase(db.url, { poolSize: 1 });
});

afterAll(async () => {
  await pool.end();
  await prisma.$disconnect();
  await db.drop();
});

const closeTo = (at: Date, ms = Date.now()) => Math.abs(at.getTime() - ms) < 60_000;

describe('sessions on a server whose time zone is not UTC', () => {
  test('when the pool and the Prisma client connect, then each session runs in UTC', async () => {
    const { rows } = await pool.query<{ tz: string }>({ text: "SELECT current_setting('TimeZone') AS tz" });
    expect(rows[0]?.tz).toBe('UTC');
    const [prismaRow] = await prisma.$queryRaw<{ tz: string }[]>`SELECT current_setting('TimeZone') AS tz`;
    expect(prismaRow?.tz).toBe('UTC');
  });

  test('when a row takes its created_at from the column default, then it reads back as the instant it was written', async () => {
    const project = await prisma.project.create({ data: { id: 'proj_tz', name: 'Zones' } });
    expect(closeTo(project.createdAt)).toBe(true);
    const { rows } = await pool.query<{ created_at: Date; now: Date }>({ text: "SELECT created_at, now()::timestamp AS now FROM projects WHERE id = 'proj_tz'" });
    expect(closeTo(rows[0]?.created_at as Date)).toBe(true);
    expect(closeTo(rows[0]?.now as Date)).toBe(true);
  });
});

describe('reading a timestamp in a process whose TZ is not UTC', () => {
  test('when TZ is Asia/Tokyo, then a timestamp column is read as the UTC wall time it holds', () => {
    // A process of its own: TZ is read when the process starts (jest's process.env is the sandbox's).
    const script = `import(${JSON.stringify(require.resolve('./pool'))}).then(async (m) => {
      const pool = (m.default ?? m).createPool(${JSON.stringify(db.url)}, 1);
      const { rows } = await pool.query({ text: "SELECT '2026-11-23 10:00:00.123'::timestamp AS at, 'infinity'::timestamp AS far" });
      console.log(JSON.stringify({ at: rows[0].at.toISOString(), far: String(rows[0].far), offset: new Date(2026, 10, 23).getTimezoneOffset() }));
      await pool.end();
    })`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { env: { ...process.env, TZ: 'Asia/Tokyo' }, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ at: '2026-11-23T10:00:00.123Z', far: 'Infinity', offset: -540 });
  });
});

describe('withTryLock', () => {
  test('when two callers want one lock at once, then one runs and the other is told at once; afterwards, and after a failure, it is free again', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = withTryLock(pool, 'probe-lock', async () => {
      await held;
      return 'first';
    });
    // The first has taken it once its work is waiting; a second pool (another replica) asks meanwhile.
    const other = createPool(db.url, 1);
    try {
      for (let i = 0; i < 50; i++) {
        const { rows } = await pool.query<{ n: number }>({ text: "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted" });
        if ((rows[0]?.n ?? 0) > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(await withTryLock(other, 'probe-lock', async () => 'second')).toEqual({ locked: false });
      expect(await withTryLock(other, 'another-lock', async () => 'other key')).toEqual({ locked: true, value: 'other key' });
      release();
      expect(await first).toEqual({ locked: true, value: 'first' });
      await expect(withTryLock(other, 'probe-lock', async () => Promise.reject(new Error('work failed')))).rejects.toThrow('work failed');
      expect(await withTryLock(pool, 'probe-lock', async () => 'again')).toEqual({ locked: true, value: 'again' });
    } finally {
      release();
      await other.end();
    }
  });
});

describe('a transaction left idle', () => {
  test('when a client holds a row lock in a transaction and sends nothing for twice the statement timeout, then PostgreSQL ends its session and another connection takes the lock', async () => {
    const short = createPool(db.url, 1, { statementTimeoutMs: 1_000 });
    const other = createPool(db.url, 1);
    try {
      await pool.query({ text: "INSERT INTO projects (id, name, updated_at) VALUES ('proj_idle_tx', 'Idle', now()) ON CONFLICT DO NOTHING" });
      const { rows } = await short.query<{ idle: string }>({ text: "SELECT current_setting('idle_in_transaction_session_timeout') AS idle" });
      expect(rows[0]?.idle).toBe('2s');
      const client = await short.connect();
      await client.query('BEGIN');
      await client.query("SELECT id FROM projects WHERE id = 'proj_idle_tx' FOR UPDATE");
      const locked = other.query({ text: "SELECT id FROM projects WHERE id = 'proj_idle_tx' FOR UPDATE NOWAIT" });
      await expect(locked).rejects.toThrow(/could not obtain lock/);
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const taken = await other.query({ text: "SELECT id FROM projects WHERE id = 'proj_idle_tx' FOR UPDATE NOWAIT" });
      expect(taken.rowCount).toBe(1);
      await expect(client.query('SELECT 1')).rejects.toThrow();
      client.release(true);
    } finally {
      await short.end();
      await other.end();
    }
  });
});
