import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client';
import { SESSION_OPTIONS } from './pool';

export type Database = PrismaClient;

/** A Prisma client over the PostgreSQL driver adapter. Call `$disconnect()` on shutdown. */
export function createDatabase(databaseUrl: string, options: { poolSize?: number } = {}): Database {
  const adapter = new PrismaPg({
    connectionString: databaseUrl,
    max: options.poolSize ?? 10,
    // Fail fast while PostgreSQL is down so requests answer 503 instead of hanging.
    connectionTimeoutMillis: 3_000,
    options: SESSION_OPTIONS,
  });
  return new PrismaClient({ adapter });
}
