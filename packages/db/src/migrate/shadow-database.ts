import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { connectionError } from './connection-error';
import { redactUrl } from '@mailroom/core';
import { quoteIdentifier, withDatabase } from './database-url';
import { MigrateError } from './errors';

/** An empty database on the target's server, for the engine to replay the migrations into. */
export interface ShadowDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

async function onMaintenanceDatabase(databaseUrl: string, sql: string): Promise<void> {
  const maintenanceUrl = withDatabase(databaseUrl, 'postgres');
  const client = new Client({ connectionString: maintenanceUrl, connectionTimeoutMillis: 10_000 });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    throw connectionError(error, maintenanceUrl);
  }
  try {
    await client.query(sql);
  } finally {
    await client.end().catch(() => {});
  }
}

export async function createShadowDatabase(databaseUrl: string): Promise<ShadowDatabase> {
  const name = `mailroom_shadow_${randomBytes(8).toString('hex')}`;
  try {
    await onMaintenanceDatabase(databaseUrl, `CREATE DATABASE ${quoteIdentifier(name)}`);
  } catch (error) {
    if (error instanceof MigrateError) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    throw new MigrateError(
      `Creating a temporary shadow database at ${redactUrl(databaseUrl)} failed (${detail}); making a migration needs the CREATEDB privilege.`,
    );
  }
  return {
    url: withDatabase(databaseUrl, name),
    // FORCE ends any connection the engine left open, so the drop cannot wait on it.
    drop: () => onMaintenanceDatabase(databaseUrl, `DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`),
  };
}
