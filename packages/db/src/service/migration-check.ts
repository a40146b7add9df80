import { readdirSync } from 'node:fs';
import type { Logger } from '@mailroom/core';
import { migrationNames } from '../migrate/migrations-directory';
import { migrationsDirectory } from '../migrate/paths';
import type { Queryable } from '../pool';

const UNDEFINED_TABLE = '42P01';

/**
 * The newest migration in `directory` (prisma/migrations, which the production tree and the
 * image carry beside the bundles): the schema this code was written against, the last in the
 * order Prisma applies them. Throws when there is none: a build without its
 * migrations could never tell whether its database is ready.
 */
export function expectedMigration(directory: string = migrationsDirectory): string {
  let names: string[];
  try {
    names = migrationNames(readdirSync(directory, { withFileTypes: true }));
  } catch (err) {
    throw new Error(`Cannot read the migrations folder ${directory}, which readiness compares the database with.`, { cause: err });
  }
  const newest = names.at(-1);
  if (newest === undefined) throw new Error(`The migrations folder ${directory} holds no migration; readiness compares the database with its newest.`);
  return newest;
}

/**
 * Whether `_prisma_migrations` records `name` as applied: finished and not rolled back, as
 * `prisma migrate deploy` (and our runner) write it. A database that was never migrated has no
 * such table and lacks it.
 */
export async function isMigrationApplied(db: Queryable, name: string): Promise<boolean> {
  try {
    const { rows } = await db.query<{ applied: boolean }>({
      name: 'mailroom-migration-applied',
      text: `SELECT EXISTS (SELECT 1 FROM _prisma_migrations
                             WHERE migration_name = $1 AND finished_at IS NOT NULL AND rolled_back_at IS NULL) AS applied`,
      values: [name],
    });
    return rows[0]?.applied === true;
  } catch (err) {
    if ((err as { code?: unknown }).code === UNDEFINED_TABLE) return false;
    throw err;
  }
}

/**
 * Readiness's schema check: the database has the code's newest migration. A database ahead of
 * the code (newer migrations applied by the next version during a rolling deploy) has it too,
 * and is ready. Once it has passed it is not asked again: migrations are not undone under a
 * running service, and a probe every few seconds should cost nothing.
 */
export class MigrationCheck {
  private passed = false;
  private reportedBehind = false;

  constructor(
    private readonly db: Queryable,
    /** The migration folder name the database must have (see expectedMigration). */
    readonly expected: string,
    private readonly logger: Logger,
  ) {}

  /** True once the database has the expected migration; throws when it cannot be asked. */
  async check(): Promise<boolean> {
    if (this.passed) return true;
    this.passed = await isMigrationApplied(this.db, this.expected);
    if (this.passed && this.reportedBehind) this.logger.info({ migration: this.expected }, 'the database has the expected migration now; ready');
    if (!this.passed && !this.reportedBehind) {
      this.logger.warn({ migration: this.expected }, 'the database lacks a migration this code expects; not ready until migrations are applied');
    }
    this.reportedBehind ||= !this.passed;
    return this.passed;
  }
}
