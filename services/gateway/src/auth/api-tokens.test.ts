import { randomBytes } from 'node:crypto';
import { createLogger, createRedis, newId, type Redis } from '@mailroom/core';
import { createDatabase, type Database } from '@mailroom/db';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/databases';
import { until } from '../../../../test/support/until';
import { ApiTokenVerifier, generateApiToken } from './api-tokens';

// The verifier remembers when it last wrote each key's lastUsedAt (to write it at most once a
// minute); with a cap of 3 here, what it remembers must stay bounded and keep throttling.

const CAP = 3;

let database: TestDatabase;
let db: Database;
let redis: Redis;
let verifier: ApiTokenVerifier;
const prefix = `mrtest-${randomBytes(4).toString('hex')}`;
const projectId = newId('project');

beforeAll(async () => {
  database = await createTestDatabase('apitokens');
  db = createDatabase(database.url, { poolSize: 2 });
  redis = createRedis('redis://127.0.0.1:6379', 'request');
  await redis.connect();
  await db.project.create({ data: { id: projectId, name: 'Tokens' } });
  verifier = new ApiTokenVerifier({ db, redis, prefix, logger: createLogger({ service: 'test', level: 'silent', nodeEnv: 'test' }), maxLastUsedKeys: CAP });
  await verifier.start();
});
afterAll(async () => {
  await verifier.stop();
  await redis.del(`${prefix}:api-keys:revocation-epoch`);
  redis.disconnect();
  await db.$disconnect();
  await database.drop();
});
afterEach(() => jest.restoreAllMocks());

async function newKeys(count: number): Promise<{ id: string; token: string }[]> {
  const keys = Array.from({ length: count }, () => ({ id: newId('apiKey'), ...generateApiToken() }));
  await db.apiKey.createMany({
    data: keys.map((k) => ({ id: k.id, projectId, name: 'k', permission: 'full_access', tokenHash: k.tokenHash, tokenStart: k.tokenStart })),
  });
  return keys;
}

/** The key ids whose last write the verifier remembers, oldest first. */
const remembered = () => [...(verifier as unknown as { lastUsedWrites: Map<string, number> }).lastUsedWrites.keys()];

const lastUsed = async (ids: string[]) =>
  (await db.apiKey.findMany({ where: { id: { in: ids } }, orderBy: { id: 'asc' } })).map((k) => k.lastUsedAt?.getTime() ?? null);

test('when more keys are used than the cap, then only the newest writes are remembered, and those keys are not written again within the minute', async () => {
  const keys = await newKeys(6);
  for (const key of keys) expect((await verifier.verify(key.token)).keyId).toBe(key.id);
  expect(remembered()).toEqual(keys.slice(-CAP).map((k) => k.id));

  const ids = keys.map((k) => k.id);
  await until(async () => (await lastUsed(ids)).every((t) => t !== null), 5_000, 'every key to be written once');
  const written = await lastUsed(ids);
  // The remembered keys used again, past the verifier's cache (emptied): no write. A new key's
  // write, awaited, shows that writes went through meanwhile.
  await verifier.announceRevocation();
  for (const key of keys.slice(-CAP)) await verifier.verify(key.token);
  const [marker] = await newKeys(1);
  await verifier.verify(marker!.token);
  await until(async () => (await lastUsed([marker!.id]))[0] !== null, 5_000, 'the new key to be written');
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(await lastUsed(ids)).toEqual(written);
  expect(remembered()).toHaveLength(CAP);
});

test('when the remembered writes are over a minute old, then passing the cap forgets those first', async () => {
  const keys = await newKeys(CAP + 1);
  for (const key of keys.slice(0, CAP)) await verifier.verify(key.token);
  const realNow = Date.now.bind(Date);
  jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 61_000);
  await verifier.verify(keys[CAP]!.token);
  expect(remembered()).toEqual([keys[CAP]!.id]);
});
