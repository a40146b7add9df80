import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@mailroom/core';
import { createTestDatabase, type TestDatabase, withAdminClient } from '../../../../test/support/databases';
import { createPool, type Pool } from '../pool';
import { expectedMigration, isMigrationApplied, MigrationCheck } from './migration-check';

let database: TestDatabase;
let pool: Pool;
const newest = expectedMigration();

beforeAll(async () => {
  database = await createTestDatabase('migration_check');
  pool = createPool(database.url, 2);
});

afterAll(async () => {
  await pool.end();
  await database.drop();
});

const record = (name: string, finished: boolean, rolledBack: boolean) =>
  pool.query({
    text: `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, finished_at, rolled_back_at, applied_steps_count)
           VALUES (gen_random_uuid()::text, 'x', $1, now(), CASE WHEN $2 THEN now() END, CASE WHEN $3 THEN now() END, 0)`,
    values: [name, finished, rolledBack],
  });

describe('expectedMigration', () => {
  test('when prisma/migrations is read, then it is the folder that sorts last, as Prisma applies them', () => {
    expect(newest).toMatch(/^\d{14}_\w+$/);
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-migrations-'));
    try {
      for (const folder of ['20261121100755_init', '20270101000000_later', '20261202070508_middle']) mkdirSync(join(dir, folder));
      writeFileSync(join(dir, 'migration_lock.toml'), '');
      expect(expectedMigration(dir)).toBe('20270101000000_later');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('when the folder is missing or empty, then it says so rather than guess', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-migrations-'));
    try {
      expect(() => expectedMigration(dir)).toThrow(/holds no migration/);
      expect(() => expectedMigration(join(dir, 'absent'))).toThrow(/Cannot read the migrations folder/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('isMigrationApplied', () => {
  test('when a migration finished and was not rolled back, then it is applied; failed, rolled back or unknown ones are not', async () => {
    expect(await isMigrationApplied(pool, newest)).toBe(true);
    await record('29990101000000_failed', false, false);
    await record('29990101000001_rolled_back', true, true);
    expect(await isMigrationApplied(pool, '29990101000000_failed')).toBe(false);
    expect(await isMigrationApplied(pool, '29990101000001_rolled_back')).toBe(false);
    expect(await isMigrationApplied(pool, '29990101000002_unknown')).toBe(false);
  });

  test('when the database was never migrated (no _prisma_migrations), then nothing is applied', async () => {
    const name = `${database.name}_empty`;
    await withAdminClient((client) => client.query(`CREATE DATABASE "${name}"`));
    const empty = createPool(database.url.replace(database.name, name), 1);
    try {
      expect(await isMigrationApplied(empty, newest)).toBe(false);
    } finally {
      await empty.end();
      await withAdminClient((client) => client.query(`DROP DATABASE "${name}" WITH (FORCE)`));
    }
  });
});

describe('MigrationCheck', () => {
  test('when it has passed once, then it answers without asking the database again', async () => {
    const queries: string[] = [];
    const counting = {
      query: (config: { text: string; values?: unknown[] }) => {
        queries.push(config.text);
        return pool.query(config);
      },
    };
    const check = new MigrationCheck(counting, '29990101000003_next', createLogger({ service: 'test', level: 'silent' }));
    expect(await check.check()).toBe(false);
    expect(await check.check()).toBe(false);
    await record('29990101000003_next', true, false);
    expect(await check.check()).toBe(true);
    expect(await check.check()).toBe(true);
    expect(queries).toHaveLength(3);
  });
});
