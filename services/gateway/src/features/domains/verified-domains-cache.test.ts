import { createPool, type Pool } from '@mailroom/db';
import { createTestDatabase, type TestDatabase } from '../../../../../test/support/databases';
import { VerifiedDomainsCache } from './verified-domains-cache';

let db: TestDatabase;
let pool: Pool;
let queries = 0;
// The pool, counting the statements the cache sends.
const counted = {
  query(config: { name?: string; text: string; values?: unknown[] }) {
    queries += 1;
    return pool.query(config);
  },
};

beforeAll(async () => {
  db = await createTestDatabase('verified_domains');
  pool = createPool(db.url, 2);
  await pool.query({ text: "INSERT INTO projects (id, name, updated_at) VALUES ('proj_a', 'A', now())" });
  await pool.query({
    text: `INSERT INTO domains (id, project_id, name, verification_token, dkim_selector, dkim_public_key, dkim_private_key, status, next_check_at, created_at, updated_at)
           VALUES ('dom_a', 'proj_a', 'acme.test', 't', 's', 'pk', 'sk', 'pending', now(), now(), now())`,
  });
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

const setStatus = (status: string) => pool.query({ text: "UPDATE domains SET status = $1 WHERE id = 'dom_a'", values: [status] });

test('when asked again within its memory, then it answers without a query; after it, or once forgotten, it reads the database again', async () => {
  const cache = new VerifiedDomainsCache(counted, 300);
  queries = 0;
  expect(await cache.verified('proj_a', ['acme.test', 'other.test'])).toEqual(new Set());
  await setStatus('verified');
  expect(await cache.verified('proj_a', ['acme.test'])).toEqual(new Set());
  expect(queries).toBe(1);
  cache.forget('proj_a');
  expect(await cache.verified('proj_a', ['acme.test'])).toEqual(new Set(['acme.test']));
  expect(queries).toBe(2);
  await setStatus('pending');
  await new Promise((resolve) => setTimeout(resolve, 350));
  expect(await cache.verified('proj_a', ['acme.test'])).toEqual(new Set());
  expect(queries).toBe(3);
  expect(await cache.verified('proj_b', ['acme.test'])).toEqual(new Set());
  expect(queries).toBe(4);
});
