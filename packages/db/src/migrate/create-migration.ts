import { promises as fs } from 'node:fs';
import { NO_FILTERS } from './apply-migrations';
import { EngineAdapterFactory } from './engine-adapter';
import { ensureDatabase } from './ensure-database';
import { MigrateError } from './errors';
import {
  LOCK_FILE_CONTENT,
  nextMigrationFolderName,
  readMigrationsList,
  sanitiseMigrationName,
  writeMigration,
} from './migrations-directory';
import { migrationsDirectory, schemaPath } from './paths';
import { type EngineLog, withSchemaEngine } from './schema-engine';
import { createShadowDatabase } from './shadow-database';

export interface CreateMigrationOptions {
  readonly databaseUrl: string;
  readonly name: string;
  readonly log: EngineLog;
  readonly baseDir?: string;
  readonly schema?: string;
  readonly now?: Date;
}

/**
 * What `prisma migrate dev --create-only` does: replays the migrations into a temporary shadow
 * database, diffs that against the Prisma schema, and writes the difference as the next
 * migration. Returns the new migration.sql's path, or null when the schema has no changes.
 */
export async function createMigration(options: CreateMigrationOptions): Promise<string | null> {
  const { databaseUrl, log, baseDir = migrationsDirectory, schema = schemaPath, now = new Date() } = options;
  const name = sanitiseMigrationName(options.name);
  // The engine opens the target database on start, even though a diff only reads the shadow.
  await ensureDatabase(databaseUrl);
  const migrationsList = await readMigrationsList(baseDir);
  // The engine learns the provider from the lock file; the first migration has none yet.
  const lockfile = { ...migrationsList.lockfile, content: migrationsList.lockfile.content ?? LOCK_FILE_CONTENT };
  const schemaContent = await fs.readFile(schema, 'utf8');

  const shadow = await createShadowDatabase(databaseUrl);
  let diff: { exitCode: number; stdout: string | null };
  try {
    const factory = new EngineAdapterFactory(databaseUrl, shadow.url);
    diff = await withSchemaEngine(factory, schema, log, (engine) =>
      engine.diff({
        from: { tag: 'migrations', ...migrationsList, lockfile },
        to: { tag: 'schemaDatamodel', files: [{ path: schema, content: schemaContent }] },
        script: true,
        // Asks the engine to report "changes" as exit code 2, "none" as 0.
        exitCode: true,
        filters: NO_FILTERS,
      }),
    );
  } finally {
    await shadow.drop().catch((error: unknown) => {
      log(`Could not drop the temporary shadow database: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
  if (diff.exitCode === 0) return null;
  if (diff.exitCode !== 2 || diff.stdout === null) {
    throw new MigrateError(`The schema engine's diff ended with exit code ${diff.exitCode} and no script.`);
  }
  const existing = migrationsList.migrationDirectories.map((directory) => directory.path);
  return writeMigration(baseDir, nextMigrationFolderName(name, existing, now), diff.stdout);
}
