import { Client } from 'pg';
import { connectionError, errorCode } from './connection-error';
import { redactUrl } from '@mailroom/core';
import { parseDatabaseUrl, quoteIdentifier, withDatabase } from './database-url';
import { MigrateError } from './errors';

const CONNECT_TIMEOUT_MS = 10_000;
const INVALID_CATALOG_NAME = '3D000';
const DUPLICATE_DATABASE = '42P04';
// Two concurrent CREATE DATABASE of one name can also collide on pg_database's unique index.
const UNIQUE_VIOLATION = '23505';
const INSUFFICIENT_PRIVILEGE = '42501';

/** A connected client, or null when the database does not exist; other failures become MigrateError. */
async function connectOrNull(databaseUrl: string): Promise<Client | null> {
  const client = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // A server that drops the connection emits 'error'; without a listener that would crash the process.
  client.on('error', () => {});
  try {
    await client.connect();
    return client;
  } catch (error) {
    await client.end().catch(() => {});
    if (errorCode(error) === INVALID_CATALOG_NAME) return null;
    throw connectionError(error, databaseUrl);
  }
}

async function createDatabase(client: Client, databaseUrl: string, databaseName: string): Promise<boolean> {
  try {
    await client.query(`CREATE DATABASE ${quoteIdentifier(databaseName)}`);
    return true;
  } catch (error) {
    const code = errorCode(error);
    if (code === DUPLICATE_DATABASE || code === UNIQUE_VIOLATION) return false;
    const where = redactUrl(databaseUrl);
    if (code === INSUFFICIENT_PRIVILEGE) {
      throw new MigrateError(`The database ${databaseName} does not exist at ${where} and this role may not create it.`);
    }
    const detail = error instanceof Error ? error.message : String(error);
    throw new MigrateError(`Creating the database ${databaseName} at ${where} failed (${detail}).`);
  }
}

/**
 * Creates the database named in the URL when it does not exist, through the server's `postgres`
 * maintenance database. Returns true when this call created it; a concurrent creator wins quietly.
 */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const { databaseName } = parseDatabaseUrl(databaseUrl);
  // Trying the target first lets a role without access to `postgres` use an existing database.
  const existing = await connectOrNull(databaseUrl);
  if (existing) {
    await existing.end().catch(() => {});
    return false;
  }
  const maintenanceUrl = withDatabase(databaseUrl, 'postgres');
  const maintenance = await connectOrNull(maintenanceUrl);
  if (!maintenance) {
    throw new MigrateError(
      `The database ${databaseName} does not exist at ${redactUrl(databaseUrl)}, and neither does the postgres maintenance database to create it from.`,
    );
  }
  try {
    return await createDatabase(maintenance, databaseUrl, databaseName);
  } finally {
    await maintenance.end().catch(() => {});
  }
}
