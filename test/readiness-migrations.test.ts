import { loadConfig } from '@mailroom/core';
import { Client } from 'pg';
import { migrateDatabase } from '../packages/db/src/migrate';
import { type RunningDispatcher, startDispatcher } from '../services/webhook-dispatcher/src/start-dispatcher';
import { createDatabaseOneMigrationBehind, createTestDatabase, type TestDatabase } from './support/databases';
import { startTestGateway, type TestGateway, testEnv } from './support/gateway';

// /readyz of the gateway and of a worker's ops server (the webhook dispatcher's) against a
// database one migration behind the code, then migrated, and against one ahead of it.

async function sql(url: string, text: string, values: unknown[] = []): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text, values);
  } finally {
    await client.end();
  }
}

async function readyz(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function startServices(database: TestDatabase): Promise<{ gateway: TestGateway; dispatcher: RunningDispatcher; urls: string[] }> {
  const gateway = await startTestGateway({ database });
  const dispatcher = await startDispatcher(loadConfig(testEnv(database, { OPS_PORT: '0' })));
  return { gateway, dispatcher, urls: [gateway.gateway.url, dispatcher.opsUrl!] };
}

describe('readiness and the database schema', () => {
  test('when the database lacks the newest migration, then /readyz is 503 with migrations "behind"; once it is applied, 200, and it is not asked again', async () => {
    const database = await createDatabaseOneMigrationBehind('ready_behind');
    const { gateway, dispatcher, urls } = await startServices(database);
    try {
      for (const url of urls) {
        expect(await readyz(url)).toEqual({
          status: 503,
          body: {
            name: 'service_unavailable',
            message: expect.stringContaining('lacks a migration'),
            statusCode: 503,
            checks: { postgres: 'ok', redis: 'ok', migrations: 'behind', shuttingDown: false },
          },
        });
      }

      expect(await migrateDatabase(database.url)).toEqual([database.missing]);
      for (const url of urls) {
        expect(await readyz(url)).toEqual({ status: 200, body: { status: 'ready', checks: { postgres: 'ok', redis: 'ok', migrations: 'ok', shuttingDown: false } } });
      }

      // A check that asked again would find no _prisma_migrations now and answer "behind".
      await sql(database.url, 'ALTER TABLE _prisma_migrations RENAME TO _prisma_migrations_moved');
      for (const url of urls) expect(await readyz(url)).toMatchObject({ status: 200, body: { checks: { migrations: 'ok' } } });
    } finally {
      await dispatcher.stop();
      await gateway.close();
      await database.drop();
    }
  }, 120_000);

  test('when the database has a migration newer than the code (the next version migrated it during a rolling deploy), then it is ready', async () => {
    const database = await createTestDatabase('ready_ahead');
    await sql(
      database.url,
      `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
       VALUES (gen_random_uuid()::text, 'next', '29991231235959_next_version', now(), now(), 1)`,
    );
    const { gateway, dispatcher, urls } = await startServices(database);
    try {
      for (const url of urls) {
        expect(await readyz(url)).toEqual({ status: 200, body: { status: 'ready', checks: { postgres: 'ok', redis: 'ok', migrations: 'ok', shuttingDown: false } } });
      }
    } finally {
      await dispatcher.stop();
      await gateway.close();
      await database.drop();
    }
  }, 60_000);
});
