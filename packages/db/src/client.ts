import { DEFAULT_STATEMENT_TIMEOUT_MS } from '@mailroom/core';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client';
import { applicationPoolConfig } from './pool';

export type Database = PrismaClient;

/**
 * A Prisma client over the PostgreSQL driver adapter, with the connection and statement
 * timeouts of every application pool (see applicationPoolConfig). Call `$disconnect()` on shutdown.
 */
export function createDatabase(databaseUrl: string, options: { poolSize?: number; statementTimeoutMs?: number } = {}): Database {
  const adapter = new PrismaPg(applicationPoolConfig(databaseUrl, options.poolSize ?? 10, options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS));
  return new PrismaClient({ adapter });
}
