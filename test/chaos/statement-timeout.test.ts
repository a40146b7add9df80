import { Client } from 'pg';
import { migrateDatabase } from '../../packages/db/src/migrate';
import { createKey, signUp, startTestGateway, type TestGateway } from '../support/gateway';
import { PrivatePostgres } from './private-servers';

// A gateway whose PostgreSQL (a private cluster) stalls: a lock held elsewhere (PostgreSQL's
// statement_timeout cancels the statement) and a frozen server (SIGSTOP: nothing answers, the
// client's read timeout gives up). Each request must answer the contract's 503 within its
// timeouts, never hang, never 500, and everything must work again once the stall is over.

const STATEMENT_TIMEOUT_MS = 1_000;
// The longest a request may take here: the statement timeout, the client's 2 s margin past it,
// the 2 s after which API keys are no longer answered from the cache, and scheduling slack.
const ANSWER_WITHIN_MS = 8_000;
// Longer than this without an answer is a hang (the request is abandoned, so the test ends).
const HANG_MS = 15_000;

let pg: PrivatePostgres;
let t: TestGateway;
let token: string;
const send = { from: 'a@acme.test', to: 'b@example.test', subject: 'stalled', text: 'hello' };

beforeAll(async () => {
  pg = await PrivatePostgres.create();
  await pg.start();
  await migrateDatabase(pg.url('mailroom'));
  t = await startTestGateway({
    database: { name: 'mailroom', url: pg.url('mailroom'), drop: async () => undefined },
    env: { DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS) },
  });
  const owner = await signUp(t.api);
  token = (await createKey(owner.as)).token;
}, 120_000);

afterAll(async () => {
  pg?.thaw();
  await t?.close();
  await pg?.remove();
}, 60_000);

/** One request, timed; `status: 0` when no answer came within HANG_MS. */
async function timed(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: unknown; ms: number }> {
  const started = Date.now();
  try {
    const res = await fetch(`${t.gateway.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(HANG_MS),
    });
    return { status: res.status, body: await res.json(), ms: Date.now() - started };
  } catch {
    return { status: 0, body: 'no answer', ms: Date.now() - started };
  }
}

const unavailable = { name: 'service_unavailable', message: expect.any(String), statusCode: 503 };

test('when the pools connect, then every session has the statement timeout', async () => {
  const { rows } = await t.gateway.ctx.pool.query<{ statement_timeout: string }>('SHOW statement_timeout');
  expect(rows[0]?.statement_timeout).toBe('1s');
  const [prisma] = await t.gateway.ctx.db.$queryRaw<{ statement_timeout: string }[]>`SHOW statement_timeout`;
  expect(prisma?.statement_timeout).toBe('1s');
});

test('when a statement waits on a lock past the statement timeout, then the request answers 503 service_unavailable, and 200 once the lock is gone', async () => {
  const locker = new Client({ connectionString: pg.url('mailroom') });
  await locker.connect();
  try {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE emails IN ACCESS EXCLUSIVE MODE');
    // Prisma (the list) and plain pg (the send's group commit), both waiting on the lock.
    const [list, sent] = await Promise.all([timed('GET', '/emails'), timed('POST', '/emails', send)]);
    for (const answer of [list, sent]) {
      expect(answer).toEqual({ status: 503, body: unavailable, ms: expect.any(Number) });
      expect(answer.ms).toBeLessThan(ANSWER_WITHIN_MS);
    }
  } finally {
    await locker.query('ROLLBACK');
    await locker.end();
  }
  expect(await timed('GET', '/emails')).toMatchObject({ status: 200, body: { object: 'list', data: [] } });
}, 30_000);

test('when PostgreSQL is frozen (SIGSTOP), then requests answer 503 service_unavailable within the timeouts, and 200 once it runs again', async () => {
  // Every pooled connection has been used, so the freeze catches open connections, not only new ones.
  expect((await timed('GET', '/emails')).status).toBe(200);
  pg.freeze();
  let frozen: Awaited<ReturnType<typeof timed>>[];
  try {
    frozen = await Promise.all([timed('GET', '/emails'), timed('POST', '/emails', send), timed('GET', '/api-keys')]);
    // A second round meets connections the first gave up on, and the pool making new ones.
    frozen.push(...(await Promise.all([timed('GET', '/emails'), timed('POST', '/emails', send)])));
  } finally {
    pg.thaw();
  }
  for (const answer of frozen) {
    expect(answer).toEqual({ status: 503, body: unavailable, ms: expect.any(Number) });
    expect(answer.ms).toBeLessThan(ANSWER_WITHIN_MS);
  }

  const started = Date.now();
  let back = await timed('GET', '/emails');
  while (back.status !== 200 && Date.now() - started < 10_000) back = await timed('GET', '/emails');
  expect(back).toMatchObject({ status: 200, body: { object: 'list' } });
  expect((await timed('POST', '/emails', send)).status).toBe(200);
}, 60_000);
