/**
 * Mailroom's migration CLI. Loads the WebAssembly schema engine, so run it as
 * `node --experimental-wasm-modules --import tsx src/cli.ts <command>` (the package scripts do).
 *
 *   migrate [--json]    create the database if missing and apply every pending migration
 *   migration <name>    write prisma/migrations/<timestamp>_<name>/migration.sql from the schema
 */
import { ConfigError, loadConfig } from '@mailroom/core';
import { applyMigrations } from './migrate/apply-migrations';
import { createMigration } from './migrate/create-migration';
import { redactUrl } from '@mailroom/core';
import { parseDatabaseUrl } from './migrate/database-url';
import { MigrateError } from './migrate/errors';
import { describeEngineError } from './migrate/engine-error';

const USAGE = 'Expected `migrate [--json]` or `migration <name>`, as in `pnpm db:migration add_users`.';

function warn(message: string): void {
  console.error(`schema engine: ${message}`);
}

async function migrate(databaseUrl: string, json: boolean): Promise<void> {
  const { createdDatabase, applied } = await applyMigrations(databaseUrl, warn);
  if (json) {
    // migrateDatabase() reads this line; keep it the last line of stdout.
    console.log(JSON.stringify({ createdDatabase, applied }));
    return;
  }
  const where = redactUrl(databaseUrl);
  if (createdDatabase) console.log(`Created the database ${parseDatabaseUrl(databaseUrl).databaseName}.`);
  if (applied.length === 0) {
    console.log(`No pending migrations; ${where} is up to date.`);
    return;
  }
  console.log(`Applied ${applied.length} migration${applied.length === 1 ? '' : 's'} to ${where}:`);
  for (const name of applied) console.log(`  ${name}`);
}

async function migration(databaseUrl: string, name: string): Promise<void> {
  const file = await createMigration({ databaseUrl, name, log: warn });
  console.log(file ?? 'no changes');
}

async function run(args: readonly string[]): Promise<void> {
  const [command, ...rest] = args;
  if (command === 'migrate' && rest.every((arg) => arg === '--json')) {
    await migrate(loadConfig().databaseUrl, rest.includes('--json'));
  } else if (command === 'migration' && rest.length === 1 && rest[0] !== undefined) {
    await migration(loadConfig().databaseUrl, rest[0]);
  } else {
    throw new MigrateError(USAGE);
  }
}

function messageFor(error: unknown): string {
  if (error instanceof MigrateError || error instanceof ConfigError) return error.message;
  return describeEngineError(error);
}

run(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(messageFor(error));
    process.exit(1);
  },
);
