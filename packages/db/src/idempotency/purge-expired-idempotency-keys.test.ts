import { createTestDatabase, type TestDatabase } from '../../../../test/support/databases';
import { createPool, type Pool, type Queryable } from '../pool';
import { IDEMPOTENCY_RETENTION_HOURS, purgeExpiredIdempotencyKeys } from './purge-expired-idempotency-keys';

let db: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  db = await createTestDatabase('idempurge');
  pool = createPool(db.url, 2);
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

/** Records of one project, each `ageMinutes` old. */
async function insertKeys(projectId: string, ages: Record<string, number>): Promise<void> {
  for (const [key, ageMinutes] of Object.entries(ages)) {
    await pool.query({
      text: `INSERT INTO idempotency_keys (project_id, endpoint, key, request_hash, response, created_at)
             VALUES ($1, 'emails', $2, 'hash', '{"id": "em_1"}', now() - make_interval(mins => $3))`,
      values: [projectId, key, ageMinutes],
    });
  }
}

async function keysOf(projectId: string): Promise<string[]> {
  const { rows } = await pool.query<{ key: string }>({ text: 'SELECT key FROM idempotency_keys WHERE project_id = $1 ORDER BY key', values: [projectId] });
  return rows.map((r) => r.key);
}

const RETENTION_MINUTES = IDEMPOTENCY_RETENTION_HOURS * 60;

describe('purgeExpiredIdempotencyKeys', () => {
  test('when records are older than 24 hours, then they are deleted, batch after batch, and newer ones are kept', async () => {
    expect(IDEMPOTENCY_RETENTION_HOURS).toBe(24);
    await insertKeys('proj_purge', {
      'expired-1': RETENTION_MINUTES + 1,
      'expired-2': RETENTION_MINUTES + 60,
      'expired-3': RETENTION_MINUTES + 600,
      'expired-4': 30 * 24 * 60,
      'expired-5': RETENTION_MINUTES + 2,
      'almost-expired': RETENTION_MINUTES - 1,
      fresh: 0,
    });

    expect(await purgeExpiredIdempotencyKeys(pool, { batchSize: 2 })).toBe(5);
    expect(await keysOf('proj_purge')).toEqual(['almost-expired', 'fresh']);
    expect(await purgeExpiredIdempotencyKeys(pool)).toBe(0);
  });

  test('when a run reaches its batch limit, then it stops there, oldest first, and the next run goes on', async () => {
    await insertKeys('proj_limit', { a: RETENTION_MINUTES + 5, b: RETENTION_MINUTES + 50, c: RETENTION_MINUTES + 500, kept: 10 });

    expect(await purgeExpiredIdempotencyKeys(pool, { batchSize: 2, maxBatches: 1 })).toBe(2);
    expect(await keysOf('proj_limit')).toEqual(['a', 'kept']);
    expect(await purgeExpiredIdempotencyKeys(pool, { batchSize: 2, maxBatches: 1 })).toBe(1);
    expect(await keysOf('proj_limit')).toEqual(['kept']);
  });

  test('when the table holds many live records and a few expired ones, then every plan reads the expired ones through the created_at index, never the table', async () => {
    await pool.query(`
      INSERT INTO idempotency_keys (project_id, endpoint, key, request_hash, response, created_at)
      SELECT 'proj_big', 'emails', 'live-' || g, 'hash', '{"id": "em_1"}', now() - (g % 1380) * interval '1 minute' FROM generate_series(1, 30000) g;
      INSERT INTO idempotency_keys (project_id, endpoint, key, request_hash, response, created_at)
      SELECT 'proj_big', 'emails', 'old-' || g, 'hash', '{"id": "em_1"}', now() - interval '25 hours' FROM generate_series(1, 10) g;
    `);
    await pool.query('VACUUM ANALYZE idempotency_keys');
    const statement = await firstStatementOf((q) => purgeExpiredIdempotencyKeys(q));

    // Planned with its values, and as a generic plan (which a prepared statement may switch to).
    for (const mode of ['force_custom_plan', 'force_generic_plan']) {
      const plan = await explainPrepared(statement, mode);
      const scans = nodes(plan).filter((n) => n['Relation Name'] === 'idempotency_keys');
      expect(scans.map((n) => n['Node Type'])).not.toContain('Seq Scan');
      expect(nodes(plan).some((n) => n['Index Name'] === 'idempotency_keys_created_at_idx')).toBe(true);
      const read = scans.reduce((sum, n) => sum + (n['Actual Rows'] + (n['Rows Removed by Filter'] ?? 0)) * n['Actual Loops'], 0);
      expect(read).toBeLessThan(100);
    }
    expect(await purgeExpiredIdempotencyKeys(pool)).toBe(10);
  });
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** The first statement a data-access function sends, captured instead of run. */
async function firstStatementOf(call: (db: Queryable) => Promise<unknown>): Promise<{ text: string; values: unknown[] }> {
  const sent: { text: string; values: unknown[] }[] = [];
  await call({
    async query(config) {
      sent.push({ text: config.text, values: config.values ?? [] });
      return { rows: [], rowCount: 0 };
    },
  });
  if (!sent[0]) throw new Error('no statement sent');
  return sent[0];
}

/** EXPLAIN ANALYZE of the statement prepared and executed in `mode`, in a transaction rolled back. */
async function explainPrepared(statement: { text: string; values: unknown[] }, mode: string): Promise<PlanNode> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL plan_cache_mode = ${mode}`);
    await client.query(`PREPARE purge AS ${statement.text}`);
    // EXECUTE takes its arguments as SQL: the values as literals, typed by the prepared statement.
    const args = statement.values.map((value) => client.escapeLiteral(String(value))).join(', ');
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE purge(${args})`);
    return (rows[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] })['QUERY PLAN'][0].Plan;
  } finally {
    await client.query('ROLLBACK');
    await client.query('DEALLOCATE ALL');
    client.release();
  }
}
