import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { cliNodeFlags } from '../../packages/db/src/migrate/run-cli';

/** The server tests run against; the maintenance database is used for CREATE/DROP DATABASE. */
export const TEST_SERVER_URL = 'postgresql://postgres@127.0.0.1:5432';
const MIGRATIONS_DIR = join(__dirname, '../../prisma/migrations');

export const databaseUrl = (name: string) => `${TEST_SERVER_URL}/${name}`;

/**
 * The migrated template every test database is copied from. Its name carries a hash of the
 * migrations, so a schema change makes a new template and concurrent runs never disturb each other.
 */
export function templateDatabaseName(): string {
  const hash = createHash('sha256');
  for (const entry of readdirSync(MIGRATIONS_DIR, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.isDirectory()) continue;
    hash.update(entry.name);
    hash.update(readFileSync(join(MIGRATIONS_DIR, entry.name, 'migration.sql')));
  }
  return `mailroom_test_tpl_${hash.digest('hex').slice(0, 12)}`;
}

export async function withAdminClient<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: databaseUrl('postgres') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** A fresh, migrated database of its own for one test file. */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const name = `mailroom_test_${label.replace(/[^a-z0-9]/gi, '').toLowerCase().slice(0, 20)}_${randomBytes(4).toString('hex')}`;
  const template = templateDatabaseName();
  await withAdminClient(async (client) => {
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
        return;
      } catch (err) {
        // Another file copying the same template at this instant: wait and retry.
        if ((err as { code?: string }).code !== '55006' || attempt >= 20) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  });
  return {
    name,
    url: databaseUrl(name),
    drop: () => dropDatabase(name),
  };
}

export async function dropDatabase(name: string): Promise<void> {
  await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

/**
 * A database of its own migrated with every migration but the newest, as a new version of the
 * code meets it before its migration has run (a rolling deploy whose migration Job is not done).
 * `migrateDatabase(url)` applies the missing one later.
 */
export async function createDatabaseOneMigrationBehind(label: string): Promise<TestDatabase & { missing: string }> {
  const folders = readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort((a, b) => a.localeCompare(b));
  const missing = folders.at(-1);
  if (missing === undefined) throw new Error('no migrations');
  const baseDir = mkdtempSync(join(tmpdir(), 'mailroom-behind-'));
  const name = `mailroom_test_${label.replace(/[^a-z0-9]/gi, '').toLowerCase().slice(0, 20)}_${randomBytes(4).toString('hex')}`;
  try {
    cpSync(join(MIGRATIONS_DIR, 'migration_lock.toml'), join(baseDir, 'migration_lock.toml'));
    for (const folder of folders.slice(0, -1)) cpSync(join(MIGRATIONS_DIR, folder), join(baseDir, folder), { recursive: true });
    // The wasm schema engine needs node flags: a child Node applies them, as the migration CLI does.
    const applier = join(__dirname, '../../packages/db/src/migrate/apply-migrations');
    const code = `require(${JSON.stringify(applier)}).applyMigrations(${JSON.stringify(databaseUrl(name))}, () => {}, ${JSON.stringify(baseDir)}).catch((err) => { console.error(err); process.exitCode = 1; })`;
    await promisify(execFile)(process.execPath, [...cliNodeFlags(), '-e', code]);
  } finally {
    rmSync(baseDir, { recursive: true, force: true });
  }
  return { name, url: databaseUrl(name), missing, drop: () => dropDatabase(name) };
}
