import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { deleteExpiredEmails } from './emails/delete-expired-emails';
import { findEmailIdsByRecipient } from './emails/find-emails-by-recipient';
import { deleteExpiredReceivedEmails } from './inbound-processing/delete-expired';
import { createPool, type Pool, type Queryable } from './pool';
import { deleteExpiredWebhookLog } from './webhook-deliveries/delete-expired-webhook-log';
import { disableFailingEndpoints } from './webhook-deliveries/reconcile-deliveries';
import { findReplayTarget } from './webhook-deliveries/manual-targets';
import { listWebhookAttempts } from './webhook-endpoints/webhook-attempts';

// Plans over tables of a few tens of thousands of rows, mostly one big project's, ANALYZEd: enough
// for the planner to choose as it would over millions. Each test runs the query as its function
// writes it and asserts how many rows the plan read, which must follow the page, not the table.

let db: TestDatabase;
let pool: Pool;

const BIG = 'proj_BIG';
const SMALL = 'proj_SMALL';
const PAGE = 21;

beforeAll(async () => {
  db = await createTestDatabase('queryplans');
  pool = createPool(db.url, 2);
  await pool.query(`
    INSERT INTO projects (id, name, updated_at) VALUES ('${BIG}', 'big', now()), ('${SMALL}', 'small', now());

    -- 100,000 emails, nearly all the big project's; every 5th is to one shared address.
    INSERT INTO emails (id, project_id, from_header, from_address, "to", subject, text, track_opens, track_clicks, message_id, status, created_at, updated_at)
    SELECT 'em_' || lpad(g::text, 26, '0'), CASE WHEN g % 100 = 7 THEN '${SMALL}' ELSE '${BIG}' END, 'a@acme.test', 'a@acme.test',
           ARRAY['x@y.test'], 's', 't', false, false, 'm' || g, 'delivered', now(), now()
      FROM generate_series(1, 100000) g;
    INSERT INTO email_recipients (id, email_id, address, kind, status, updated_at)
    SELECT 'rcpt_' || lpad(g::text, 26, '0'), 'em_' || lpad(g::text, 26, '0'),
           CASE WHEN g % 5 = 0 THEN 'ops@shared.test' ELSE 'user' || g || '@example.com' END, 'to', 'delivered', now()
      FROM generate_series(1, 100000) g;

    -- Each email's email.delivered, made with it.
    INSERT INTO email_events (id, project_id, email_id, type, recipient, data, created_at)
    SELECT 'evt_e' || lpad(g::text, 25, '0'), CASE WHEN g % 100 = 7 THEN '${SMALL}' ELSE '${BIG}' END, 'em_' || lpad(g::text, 26, '0'),
           'email.delivered', 'x@y.test', '{}', now()
      FROM generate_series(1, 100000) g;

    -- 20,000 received emails of the big project.
    INSERT INTO received_emails (id, project_id, kind, route_ids, mail_from, rcpt_to, raw, size)
    SELECT 'inb_' || lpad(g::text, 26, '0'), '${BIG}', 'route', '{}', 'a@example.com', ARRAY['in@acme.test'], '\\x00', 1
      FROM generate_series(1, 20000) g;

    -- 20,000 suppressions of the big project, 20 of the small one.
    INSERT INTO suppressions (project_id, address, reason, created_at)
    SELECT '${BIG}', 'b' || g || '@example.com', 'bounce', timestamp '2025-01-01' + g * interval '1 minute' FROM generate_series(1, 20000) g;
    INSERT INTO suppressions (project_id, address, reason, created_at)
    SELECT '${SMALL}', 's' || g || '@example.com', 'bounce', timestamp '2025-01-01' + g * interval '1 day' FROM generate_series(1, 20) g;

    -- A healthy endpoint with 40,000 successful attempts, a small one with some failures, and a
    -- disabled endpoint whose 30,000 deliveries all succeeded before it was disabled.
    INSERT INTO webhooks (id, project_id, url, events, secret_ciphertext, enabled, disabled_reason, updated_at) VALUES
      ('wh_BIG', '${BIG}', 'https://big.test/h', '{email.delivered}', 'sealed', true, NULL, now()),
      ('wh_SMALL', '${SMALL}', 'https://small.test/h', '{email.delivered}', 'sealed', true, NULL, now()),
      ('wh_OFF', '${BIG}', 'https://off.test/h', '{email.delivered}', 'sealed', false, 'manual', now());
    INSERT INTO webhook_attempts (id, webhook_id, event_id, event_type, attempt, trigger, url, response_status, duration_ms, success, created_at)
    SELECT 'wha_' || lpad(g::text, 26, '0'), CASE WHEN g % 200 = 3 THEN 'wh_SMALL' ELSE 'wh_BIG' END, 'evt_' || lpad(g::text, 26, '0'),
           'email.delivered', 1, 'scheduled', 'https://x.test/h', 200, 40, g % 200 <> 3 OR g % 400 = 3, now()
      FROM generate_series(1, 40000) g;
    INSERT INTO webhook_deliveries (event_id, webhook_id, project_id, state, attempts, next_attempt_at, created_at, updated_at)
    SELECT 'evt_' || lpad(g::text, 26, '0'), 'wh_OFF', '${BIG}', 'succeeded', 1, NULL, now(), now() FROM generate_series(1, 30000) g;
    INSERT INTO webhook_deliveries (event_id, webhook_id, project_id, state, attempts, next_attempt_at, created_at, updated_at)
    SELECT 'evt_' || lpad(g::text, 26, '0'), 'wh_BIG', '${BIG}', 'pending', 0, now() + interval '5 minutes', now(), now() FROM generate_series(1, 300) g;
  `);
  // As a table that has lived a while is: its statistics gathered and its visibility map set
  // (without it the planner costs index-only scans as heap reads, and may choose otherwise).
  // Every row sampled, so the statistics, and the plans, are the same on every run.
  const client = await pool.connect();
  try {
    await client.query('SET default_statistics_target = 1000');
    await client.query('VACUUM ANALYZE');
  } finally {
    client.release();
  }
}, 60_000);

afterAll(async () => {
  await pool.end();
  await db.drop();
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** Every node of a plan, depth first. */
function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** What a plan did to one table: the rows its scans of that table read, and whether any read it all. */
function readOf(plan: PlanNode, table: string): { rows: number; seqScan: boolean } {
  const scans = nodes(plan).filter((n) => n['Relation Name'] === table);
  const rows = scans.reduce(
    (sum, n) => sum + (n['Actual Rows'] + (n['Rows Removed by Filter'] ?? 0) + (n['Rows Removed by Index Recheck'] ?? 0)) * n['Actual Loops'],
    0,
  );
  return { rows, seqScan: scans.some((n) => n['Node Type'] === 'Seq Scan') };
}

/** EXPLAIN (ANALYZE, FORMAT JSON) of one statement, in a transaction rolled back (an UPDATE changes nothing). */
async function explain(text: string, values: unknown[] = []): Promise<PlanNode> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>({ text: `EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, values });
    return (rows[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] })['QUERY PLAN'][0].Plan;
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

/** The statements a data-access function sends, captured instead of run (it sees no rows). */
async function statementsOf(call: (db: Queryable) => Promise<unknown>): Promise<{ text: string; values: unknown[] }[]> {
  const sent: { text: string; values: unknown[] }[] = [];
  const recorder: Queryable = {
    async query(config) {
      sent.push({ text: config.text, values: config.values ?? [] });
      return { rows: [], rowCount: 0 };
    },
  };
  await call(recorder).catch(() => undefined);
  return sent;
}

async function planOf(call: (db: Queryable) => Promise<unknown>, index = 0): Promise<PlanNode> {
  const statement = (await statementsOf(call))[index];
  if (!statement) throw new Error(`no statement ${index}`);
  return explain(statement.text, statement.values);
}

describe('query plans at scale', () => {
  test('when the suppression list is paged, first page or deep, then it reads about a page of the big project, never the whole table', async () => {
    // The statement Prisma sends for GET /suppressions (services/gateway/src/features/suppressions/routes.ts).
    const list = (cursor: { createdAt: string; address: string } | null) =>
      explain(
        `SELECT * FROM suppressions
          WHERE project_id = $1 ${cursor ? 'AND created_at <= $3 AND (created_at < $3 OR (created_at = $3 AND address > $4))' : ''}
          ORDER BY created_at DESC, address ASC LIMIT $2`,
        cursor ? [BIG, PAGE, cursor.createdAt, cursor.address] : [BIG, PAGE],
      );
    for (const plan of [await list(null), await list({ createdAt: '2025-01-08 00:00:00', address: 'b10080@example.com' })]) {
      const read = readOf(plan, 'suppressions');
      expect(read.seqScan).toBe(false);
      expect(read.rows).toBeLessThan(200);
      expect(nodes(plan).some((n) => n['Node Type'] === 'Sort')).toBe(false);
    }
  });

  test('when the attempt log is filtered by success, or replay looks for a failure, on an endpoint that never failed, then only that endpoint\'s failures are read', async () => {
    const failures = await planOf((q) => listWebhookAttempts(q, { projectId: BIG, webhookId: 'wh_BIG', success: false, limit: PAGE }));
    expect(readOf(failures, 'webhook_attempts')).toEqual({ rows: 0, seqScan: false });

    const deep = await planOf((q) =>
      listWebhookAttempts(q, { projectId: SMALL, webhookId: 'wh_SMALL', success: true, before: `wha_${'39000'.padStart(26, '0')}`, limit: PAGE }),
    );
    expect(readOf(deep, 'webhook_attempts').rows).toBeLessThan(200);

    const replay = await planOf((q) => findReplayTarget(q, BIG, 'wh_BIG'));
    expect(readOf(replay, 'webhook_attempts')).toEqual({ rows: 0, seqScan: false });
  });

  test('when emails are listed by a shared recipient from deep in the big project, then the page reads about a page of emails', async () => {
    const plan = await planOf((q) =>
      findEmailIdsByRecipient(q, { projectId: BIG, address: 'ops@shared.test', before: `em_${'50000'.padStart(26, '0')}`, limit: PAGE }),
    );
    expect(readOf(plan, 'emails').rows).toBeLessThan(2_000);
    expect(readOf(plan, 'email_recipients').rows).toBeLessThan(2_000);
  });

  test('when the reconciler stops a disabled endpoint\'s pending deliveries, then it reads the pending ones, not the endpoint\'s delivered history', async () => {
    const plan = await planOf((q) => disableFailingEndpoints(q), 1);
    const read = readOf(plan, 'webhook_deliveries');
    expect(read.seqScan).toBe(false);
    expect(read.rows).toBeLessThan(2_000);
  });

  // The fixture's ids ('em_000…', 'wha_000…', 'evt_000…') sort before any id of this year, so to
  // the retention sweeps every row here is past retention: each statement must still read a page.
  test('when the retention sweeps delete a page of old emails, received emails, attempts and deliveries, then each statement reads about its page', async () => {
    const emails = await planOf((q) => deleteExpiredEmails(q, { olderThanDays: 30 }));
    expect(readOf(emails, 'emails').seqScan).toBe(false);
    // A page of 500, read by the page, the lock and the delete: far from the table's 100,000.
    expect(readOf(emails, 'emails').rows).toBeLessThan(5_000);
    expect(readOf(emails, 'email_events').seqScan).toBe(false);
    expect(readOf(emails, 'email_events').rows).toBeLessThan(5_000);

    const attempts = await planOf((q) => deleteExpiredWebhookLog(q, { olderThanDays: 30 }));
    expect(readOf(attempts, 'webhook_attempts').seqScan).toBe(false);
    expect(readOf(attempts, 'webhook_attempts').rows).toBeLessThan(5_000);

    const received = await planOf((q) => deleteExpiredReceivedEmails(q, { olderThanDays: 30 }));
    expect(readOf(received, 'received_emails').seqScan).toBe(false);
    expect(readOf(received, 'received_emails').rows).toBeLessThan(5_000);

    const deliveries = await planOf((q) => deleteExpiredWebhookLog(q, { olderThanDays: 30 }), 1);
    expect(readOf(deliveries, 'webhook_deliveries').seqScan).toBe(false);
    expect(readOf(deliveries, 'webhook_deliveries').rows).toBeLessThan(5_000);
  });
});
