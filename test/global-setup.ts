import { migrateDatabase } from '../packages/db/src/migrate';
import { databaseUrl, templateDatabaseName, withAdminClient } from './support/databases';

// Serialises template creation between concurrent jest runs on one machine.
const TEMPLATE_LOCK = 7_241_002;

/** Builds the migrated template database once per schema; test files copy it. */
export default async function globalSetup(): Promise<void> {
  const template = templateDatabaseName();
  await withAdminClient(async (client) => {
    await client.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    try {
      const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
      if (rowCount) return;
      const building = `${template}_building`;
      await client.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
      await migrateDatabase(databaseUrl(building));
      // Renamed only when complete, so a half-built template is never copied.
      await client.query(`ALTER DATABASE "${building}" RENAME TO "${template}"`);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
    }
  });
}
