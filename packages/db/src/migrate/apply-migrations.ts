import { EngineAdapterFactory } from './engine-adapter';
import { ensureDatabase } from './ensure-database';
import { readMigrationsList } from './migrations-directory';
import { migrationsDirectory, schemaPath } from './paths';
import { type EngineLog, withSchemaEngine } from './schema-engine';

export interface ApplyMigrationsResult {
  /** True when the database did not exist and this run created it. */
  readonly createdDatabase: boolean;
  /** Folder names of the migrations this run applied, oldest first. */
  readonly applied: string[];
}

export const NO_FILTERS = { externalTables: [], externalEnums: [] };

/**
 * What `prisma migrate deploy` does: creates the database if needed and applies every migration
 * not yet recorded in `_prisma_migrations`. Needs the wasm engine, so only a process started with
 * --experimental-wasm-modules may call it; others use migrateDatabase().
 */
export async function applyMigrations(
  databaseUrl: string,
  log: EngineLog,
  baseDir: string = migrationsDirectory,
): Promise<ApplyMigrationsResult> {
  const createdDatabase = await ensureDatabase(databaseUrl);
  const migrationsList = await readMigrationsList(baseDir);
  const factory = new EngineAdapterFactory(databaseUrl);
  const { appliedMigrationNames } = await withSchemaEngine(factory, schemaPath, log, (engine) =>
    engine.applyMigrations({ migrationsList, filters: NO_FILTERS }),
  );
  return { createdDatabase, applied: appliedMigrationNames };
}
