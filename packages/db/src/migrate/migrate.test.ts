import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { withDatabase } from './database-url';
import { describeEngineError } from './engine-error';
import { ensureDatabase, MigrateError, migrateDatabase } from './index';
import { MIGRATION_FILE, nextMigrationFolderName, sanitiseMigrationName } from './migrations-directory';
import { migrationsDirectory, schemaPath } from './paths';
import { cliNodeFlags, runCli } from './run-cli';

const SERVER_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';
const created: string[] = [];

function uniqueDatabase(label: string): { name: string; url: string } {
  const name = `mailroom_test_migrate_${label}_${randomBytes(4).toString('hex')}`;
  created.push(name);
  return { name, url: withDatabase(SERVER_URL, name) };
}

async function query<T>(databaseUrl: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as T[];
  } finally {
    await client.end();
  }
}

async function migrationFolders(): Promise<string[]> {
  const entries = await fs.readdir(migrationsDirectory, { withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** Table names the schema declares: each model's @@map, or its name. */
async function schemaTables(): Promise<string[]> {
  const schema = await fs.readFile(schemaPath, 'utf8');
  const tables = [...schema.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)].map(
    ([, model, body]) => /@@map\("([^"]+)"\)/.exec(body ?? '')?.[1] ?? model ?? '',
  );
  return tables.sort();
}

async function shadowDatabases(): Promise<string[]> {
  const rows = await query<{ datname: string }>(SERVER_URL, "SELECT datname FROM pg_database WHERE datname LIKE 'mailroom_shadow_%'");
  return rows.map((row) => row.datname);
}

afterAll(async () => {
  for (const name of created) {
    await query(SERVER_URL, `DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  }
});

describe('ensureDatabase', () => {
  test('when the database is missing, then it creates it, and reports false the second time', async () => {
    // Upper case and a hyphen need quoting, so this also proves the identifier is quoted.
    const { name, url } = uniqueDatabase('Quoted-Name');
    expect(await ensureDatabase(url)).toBe(true);
    expect(await query(SERVER_URL, 'SELECT 1 FROM pg_database WHERE datname = $1', [name])).toHaveLength(1);
    expect(await ensureDatabase(url)).toBe(false);
  });

  test('when several processes race to create one database, then exactly one reports creating it', async () => {
    const { url } = uniqueDatabase('race');
    const results = await Promise.all([ensureDatabase(url), ensureDatabase(url), ensureDatabase(url), ensureDatabase(url)]);
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  test('when PostgreSQL is unreachable, then it names the URL without its password', async () => {
    const promise = ensureDatabase('postgresql://postgres:hunter2@127.0.0.1:1/mailroom');
    await expect(promise).rejects.toThrow(MigrateError);
    await expect(promise).rejects.toThrow('postgresql://postgres:***@127.0.0.1:1/mailroom');
    await expect(promise).rejects.not.toThrow('hunter2');
  });
});

describe('migrateDatabase', () => {
  test('when a fresh database is migrated twice, then the first run creates the schema and the second applies nothing', async () => {
    const { url } = uniqueDatabase('fresh');
    const folders = await migrationFolders();
    expect(folders.length).toBeGreaterThan(0);

    expect(await migrateDatabase(url)).toEqual(folders);

    const tables = await query<{ tablename: string }>(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'");
    expect(tables.map((row) => row.tablename).sort()).toEqual([...(await schemaTables()), '_prisma_migrations'].sort());

    const rows = await query<{ migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null }>(
      url,
      'SELECT migration_name, checksum, finished_at, rolled_back_at FROM _prisma_migrations ORDER BY migration_name',
    );
    expect(rows.map((row) => row.migration_name)).toEqual(folders);
    for (const row of rows) {
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.rolled_back_at).toBeNull();
      // `prisma migrate` compares this SHA-256 of the file to decide whether a migration was edited.
      const script = await fs.readFile(path.join(migrationsDirectory, row.migration_name, MIGRATION_FILE));
      expect(row.checksum).toBe(createHash('sha256').update(script).digest('hex'));
    }

    expect(await migrateDatabase(url)).toEqual([]);
    expect(await query(url, 'SELECT 1 FROM _prisma_migrations')).toHaveLength(rows.length);
  });
});

describe('migration CLI', () => {
  test('when the schema matches the migrations, then `migration` prints "no changes", writes nothing and leaves no shadow database', async () => {
    const { url } = uniqueDatabase('nochange');
    const before = await fs.readdir(migrationsDirectory);
    const shadowsBefore = await shadowDatabases();

    const result = await runCli(['migration', 'nothing_new'], url);

    expect(result).toMatchObject({ code: 0, stdout: 'no changes\n' });
    expect(await fs.readdir(migrationsDirectory)).toEqual(before);
    expect((await shadowDatabases()).filter((name) => !shadowsBefore.includes(name))).toEqual([]);
  });

  test('when PostgreSQL is unreachable, then `migrate` exits 1 with one sentence naming the URL', async () => {
    const result = await runCli(['migrate'], 'postgresql://postgres:hunter2@127.0.0.1:1/mailroom');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringContaining('Cannot connect to PostgreSQL at postgresql://postgres:***@127.0.0.1:1/mailroom'),
    ]);
    expect(result.stderr).not.toContain('hunter2');
  });
});

describe('createMigration', () => {
  let workDir: string;
  beforeEach(async () => {
    workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'mailroom-migrate-test-'));
  });
  afterEach(async () => {
    await fs.rm(workDir, { recursive: true, force: true });
  });

  /** createMigration needs the wasm flags, so it runs in a child Node, against copies of the real files. */
  function createMigrationInChild(databaseUrl: string, baseDir: string, schema: string) {
    const options = JSON.stringify({ databaseUrl, name: 'Add widgets', baseDir, schema });
    const code = [
      `require(${JSON.stringify(path.join(__dirname, 'create-migration'))})`,
      `.createMigration({ ...${options}, log: () => {} })`,
      ".then((file) => console.log(file ?? 'no changes'), (error) => { console.error(error.message); process.exitCode = 1; })",
    ].join('');
    const { status, stdout, stderr } = spawnSync(process.execPath, [...cliNodeFlags(), '-e', code], { encoding: 'utf8' });
    return { status, stdout, stderr };
  }

  test('when the schema gains a model, then the next migration creates only its table and sorts last', async () => {
    const { url } = uniqueDatabase('newmodel');
    const baseDir = path.join(workDir, 'migrations');
    await fs.cp(migrationsDirectory, baseDir, { recursive: true });
    const schema = path.join(workDir, 'schema.prisma');
    const widget = '\nmodel Widget {\n  id String @id\n\n  @@map("widgets")\n}\n';
    await fs.writeFile(schema, (await fs.readFile(schemaPath, 'utf8')) + widget);

    const result = createMigrationInChild(url, baseDir, schema);

    expect(result).toMatchObject({ status: 0, stderr: '' });
    const file = result.stdout.trim();
    const folder = path.basename(path.dirname(file));
    expect(folder).toMatch(/^\d{14}_add_widgets$/);
    expect((await migrationFolders()).every((existing) => existing < folder)).toBe(true);
    const sql = await fs.readFile(file, 'utf8');
    expect(sql).toContain('CREATE TABLE "widgets"');
    expect(sql).not.toContain('CREATE TABLE "users"');
    expect(createMigrationInChild(url, baseDir, schema)).toMatchObject({ status: 0, stdout: 'no changes\n' });
  });
});

describe('migration names', () => {
  test('when a name has other characters, then it is reduced to lower-case letters, digits and underscores', () => {
    expect(sanitiseMigrationName('Add Users-Table!')).toBe('add_users_table');
    expect(() => sanitiseMigrationName('--')).toThrow(MigrateError);
  });

  test('when the newest folder is not older than now, then the next folder sorts after it', () => {
    const now = new Date('2025-01-02T03:04:05Z');
    expect(nextMigrationFolderName('b', ['20240101000000_a'], now)).toBe('20250102030405_b');
    expect(nextMigrationFolderName('b', ['20250102030405_a'], now)).toBe('20250102030406_b');
    expect(nextMigrationFolderName('b', ['20250102235959_a'], now)).toBe('20250103000000_b');
  });
});

describe('describeEngineError', () => {
  test('when the engine reports a failed migration, then the message names it without the span trace', () => {
    const error = new Error(
      'external connector error\nNo such table: nope\n   0: sql_schema_connector::apply_migration::apply_script\n           with migration_name="20200101000001_b"\n             at x.rs:113',
    );
    expect(describeEngineError(error)).toBe('Migration 20200101000001_b failed: No such table: nope.');
  });
});
