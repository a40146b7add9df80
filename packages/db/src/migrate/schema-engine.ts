import { promises as fs } from 'node:fs';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import type { SchemaEngine } from '@prisma/schema-engine-wasm';
import type { EngineAdapterFactory } from './engine-adapter';
import { unwrapExternalError } from './engine-error';
import { MigrateError } from './errors';

/** Receives the engine's warnings and errors as single lines. */
export type EngineLog = (message: string) => void;

type WasmModule = typeof import('@prisma/schema-engine-wasm');

async function loadWasmModule(): Promise<WasmModule> {
  try {
    return await import('@prisma/schema-engine-wasm');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ERR_UNKNOWN_FILE_EXTENSION' || code === 'ERR_UNKNOWN_MODULE_FORMAT') {
      throw new MigrateError(
        'The schema engine is WebAssembly and this Node needs --experimental-wasm-modules to load it; run migrations through migrateDatabase() or `pnpm db:migrate`.',
      );
    }
    throw error;
  }
}

/** The engine logs JSON lines; only its warnings and errors are worth a person's attention. */
function forwardLog(log: EngineLog): (line: string) => void {
  return (line) => {
    try {
      const entry = JSON.parse(line) as { level?: string; fields?: { message?: string } };
      if (entry.level === 'WARN' || entry.level === 'ERROR') log(entry.fields?.message ?? line);
    } catch {
      log(line);
    }
  };
}

/**
 * Runs `use` with a schema engine connected through `factory`, then frees the engine and closes
 * every connection it opened. JavaScript errors from the adapter come back as themselves.
 */
export async function withSchemaEngine<T>(
  factory: EngineAdapterFactory,
  schemaPath: string,
  log: EngineLog,
  use: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  const { SchemaEngine } = await loadWasmModule();
  const schema = await fs.readFile(schemaPath, 'utf8');
  const adapter = bindMigrationAwareSqlAdapterFactory(factory);
  const unwrap = (error: unknown): unknown => unwrapExternalError(error, adapter.errorRegistry);
  let engine: SchemaEngine | undefined;
  try {
    engine = await SchemaEngine.new({ datamodels: [[schemaPath, schema]] }, forwardLog(log), adapter).catch(
      (error: unknown) => {
        throw unwrap(error);
      },
    );
    return await use(engine).catch((error: unknown) => {
      throw unwrap(error);
    });
  } finally {
    engine?.free();
    await factory.close();
  }
}
