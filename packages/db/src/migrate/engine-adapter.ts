import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { MigrateError } from './errors';

const CHAR_OID = 18;
const TEXT_OID = 25;

function reportCharAsText(result: unknown): unknown {
  for (const one of Array.isArray(result) ? result : [result]) {
    const fields = (one as Partial<pg.QueryResult> | null | undefined)?.fields ?? [];
    for (const field of fields) {
      if (field.dataTypeID === CHAR_OID) field.dataTypeID = TEXT_OID;
    }
  }
  return result;
}

/**
 * The engine introspects catalog columns of PostgreSQL's one-byte `"char"` type (such as
 * pg_constraint.contype), which @prisma/adapter-pg 7.10 rejects as an unsupported column type.
 * Their values arrive as one-character strings either way, so this client reports them as text.
 */
class CharAsTextClient extends pg.Client {}
const plainQuery = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown;
(CharAsTextClient.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function query(
  this: pg.Client,
  ...args: unknown[]
): unknown {
  const callbackAt = args.findIndex((arg) => typeof arg === 'function');
  if (callbackAt >= 0) {
    const callback = args[callbackAt] as (error: Error | null, result: unknown) => void;
    args[callbackAt] = (error: Error | null, result: unknown) => callback(error, error ? result : reportCharAsText(result));
    return plainQuery.apply(this, args);
  }
  const returned = plainQuery.apply(this, args);
  return returned instanceof Promise ? returned.then(reportCharAsText) : returned;
};

/**
 * Connections for the schema engine: the target database, and the shadow database the caller
 * created (the engine never creates one itself here, so the caller always knows what to drop).
 */
export class EngineAdapterFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = 'postgres';
  readonly adapterName = '@prisma/adapter-pg';
  private readonly pools: pg.Pool[] = [];

  constructor(
    private readonly databaseUrl: string,
    private readonly shadowDatabaseUrl?: string,
  ) {}

  connect(): Promise<SqlDriverAdapter> {
    return this.adapterFor(this.databaseUrl);
  }

  connectToShadowDb(): Promise<SqlDriverAdapter> {
    if (this.shadowDatabaseUrl === undefined) {
      return Promise.reject(new MigrateError('The schema engine asked for a shadow database this command did not create.'));
    }
    return this.adapterFor(this.shadowDatabaseUrl);
  }

  /** Ends every pool this factory opened, whether or not the engine disposed of its adapters. */
  async close(): Promise<void> {
    await Promise.all(this.pools.splice(0).map((pool) => pool.end().catch(() => {})));
  }

  private async adapterFor(connectionString: string): Promise<SqlDriverAdapter> {
    const pool = new pg.Pool({
      connectionString,
      Client: CharAsTextClient as unknown as new () => pg.ClientBase,
      // One session that stays open, as the native engine uses: its advisory lock, the
      // migration scripts and the _prisma_migrations writes then share one connection.
      max: 1,
      idleTimeoutMillis: 0,
    });
    // Idle clients of a dropped shadow database emit 'error'; unhandled, that would end the process.
    pool.on('error', () => {});
    this.pools.push(pool);
    const adapter = await new PrismaPg(pool).connect();
    // adapter-pg splits scripts on every ";", breaking semicolons inside strings, comments and
    // function bodies. One simple-protocol query runs the script whole and all-or-nothing, as the
    // native engine does; executeRaw without arguments sends exactly that.
    adapter.executeScript = async (script: string): Promise<void> => {
      await adapter.executeRaw({ sql: script, args: [], argTypes: [] });
    };
    return adapter;
  }
}
