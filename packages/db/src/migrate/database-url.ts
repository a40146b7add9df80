import { redactUrl } from '@mailroom/core';
import { MigrateError } from './errors';

/** The pieces of a postgresql:// URL the migration runner needs. */
export interface ParsedDatabaseUrl {
  readonly url: URL;
  readonly databaseName: string;
}

export function parseDatabaseUrl(databaseUrl: string): ParsedDatabaseUrl {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    throw new MigrateError('DATABASE_URL is not a valid URL.');
  }
  if (url.protocol !== 'postgresql:' && url.protocol !== 'postgres:') {
    throw new MigrateError(`DATABASE_URL must start with postgresql://, not ${url.protocol}//.`);
  }
  const databaseName = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (databaseName === '' || databaseName.includes('/')) {
    throw new MigrateError(`DATABASE_URL ${redactUrl(databaseUrl)} does not name a database.`);
  }
  return { url, databaseName };
}

/** The same server and credentials, another database. */
export function withDatabase(databaseUrl: string, databaseName: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${encodeURIComponent(databaseName)}`;
  return url.toString();
}

/** A double-quoted PostgreSQL identifier; embedded quotes are doubled. */
export function quoteIdentifier(name: string): string {
  if (name.includes('\0')) throw new MigrateError('A database name cannot contain a NUL character.');
  return `"${name.replace(/"/g, '""')}"`;
}
