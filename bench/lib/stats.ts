import { createPool, type Pool, rollUpAllStats, STAT_TYPES } from '@mailroom/db';
import { median } from './table';

/**
 * The stats scenario: `GET /stats` over a project holding `events` events, beside a plain
 * `SELECT count(*)` over the same rows, alternating, each the median of `samples` calls.
 */
export interface StatsSettings {
  events: number;
  /** The seeded events are spread over this many days before now. */
  days: number;
  /** Calls per measurement; the measurement is their median. */
  samples: number;
  /** Events appended past the rollup's cursor for the "live tail" measurement. */
  tail: number;
}

export interface StatsSample {
  /** Median milliseconds of the plain count. */
  countMs: number;
  /** Median milliseconds of GET /stats?interval=day and ?interval=hour over the same range. */
  dayMs: number;
  hourMs: number;
}

export interface StatsBench {
  pool: Pool;
  projectId: string;
  from: string;
  to: string;
  close(): Promise<void>;
}

const TYPES = Object.keys(STAT_TYPES);

/** The bench project (the token's own) and a pool on the bench database. */
export async function openStatsBench(databaseUrl: string, gatewayUrl: string, token: string, days: number): Promise<StatsBench> {
  const projects = await getJson<{ data: { id: string }[] }>(gatewayUrl, '/projects', token);
  const projectId = projects.data[0]?.id;
  if (!projectId) throw new Error('the bench token sees no project');
  const pool = createPool(databaseUrl, 2);
  const to = new Date();
  const from = new Date(to.getTime() - days * 86_400_000);
  return { pool, projectId, from: from.toISOString(), to: to.toISOString(), close: () => pool.end() };
}

/**
 * Appends `count` events to the outbox in one statement (not timed): the ten counted types in
 * turn, every tenth open or click a bot's, spread evenly over the range; plus a tenth as many
 * in another project, which neither measurement may count.
 */
export async function seedStatsEvents(bench: StatsBench, count: number, tag: string): Promise<void> {
  // Positions g of 0…count-1, so created_at runs over [from, to) as the count's range does.
  const seed = (projectId: string, n: number, prefix: string) =>
    bench.pool.query({
      text: `INSERT INTO email_events (id, project_id, received_email_id, type, data, created_at)
             SELECT $2 || g, $1, 'inb_bench', ($3::text[])[1 + g % 10],
                    CASE WHEN g % 100 IN (7, 8) THEN '{"open": {"is_bot": true}, "click": {"is_bot": true}}'::jsonb
                         ELSE '{"open": {"is_bot": false}, "click": {"is_bot": false}}'::jsonb END,
                    $4::timestamptz AT TIME ZONE 'UTC' + (($5::timestamptz - $4::timestamptz) * g / $6)
               FROM generate_series(0, $6::int - 1) g`,
      values: [projectId, prefix, TYPES, bench.from, bench.to, n],
    });
  await seed(bench.projectId, count, `evt_bench_${tag}_`);
  await seed('proj_bench_other', Math.ceil(count / 10), `evt_bench_other_${tag}_`);
  await bench.pool.query({ text: 'ANALYZE email_events' });
}

/** How many of `count` seeded events /stats counts: all but the bots' opens and clicks (g % 100 of 7 or 8). */
export function countedOf(count: number): number {
  const bots = 2 * Math.floor(count / 100) + [7, 8].filter((r) => r < count % 100).length;
  return count - bots;
}

/**
 * Runs the rollup until it has caught up; answers its events per second. The rollup reads only
 * events older than every running transaction on the server: others' may hold it back a moment.
 */
export async function catchUpRollup(bench: StatsBench, expected: number, timeoutMs = 300_000): Promise<{ events: number; seconds: number }> {
  const start = performance.now();
  let events = 0;
  for (const deadline = start + timeoutMs; events < expected && performance.now() < deadline; ) {
    const added = await rollUpAllStats(bench.pool);
    events += added;
    if (added === 0) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (events < expected) throw new Error(`the rollup read ${events} of ${expected} events within ${timeoutMs / 1000} s`);
  const seconds = (performance.now() - start) / 1000;
  // What autovacuum does soon after such a load, done now for both sides: visibility maps and
  // statistics of the fresh rows (the upserts' dead versions, the seeded events).
  await bench.pool.query({ text: 'VACUUM ANALYZE stats_hourly, email_events' });
  return { events, seconds };
}

/** The baseline: `SELECT count(*)` of the project's events in the range, on one pg connection. */
export async function timeCount(bench: StatsBench): Promise<{ ms: number; count: number }> {
  const start = performance.now();
  const { rows } = await bench.pool.query<{ n: string }>({
    text: `SELECT count(*) AS n FROM email_events
            WHERE project_id = $1 AND created_at >= ($2::timestamptz AT TIME ZONE 'UTC') AND created_at < ($3::timestamptz AT TIME ZONE 'UTC')`,
    values: [bench.projectId, bench.from, bench.to],
  });
  return { ms: performance.now() - start, count: Number(rows[0]?.n) };
}

/** Ours: GET /stats over the same range, through the real gateway over HTTP (keep-alive). Answers the total it counted. */
export async function timeStats(gatewayUrl: string, token: string, bench: StatsBench, interval: 'day' | 'hour'): Promise<{ ms: number; total: number }> {
  const start = performance.now();
  const body = await getJson<{ totals: Record<string, number> }>(gatewayUrl, `/stats?interval=${interval}&from=${bench.from}&to=${bench.to}`, token);
  const ms = performance.now() - start;
  return { ms, total: Object.values(body.totals).reduce((sum, n) => sum + n, 0) };
}

/** One round: `samples` counts, then `samples` of each /stats, alternating call by call; medians. */
export async function measureStatsRound(gatewayUrl: string, token: string, bench: StatsBench, samples: number): Promise<StatsSample & { count: number; total: number }> {
  const count: number[] = [];
  const day: number[] = [];
  const hour: number[] = [];
  let rows = 0;
  let total = 0;
  for (let i = 0; i < samples; i++) {
    const c = await timeCount(bench);
    count.push(c.ms);
    rows = c.count;
    const d = await timeStats(gatewayUrl, token, bench, 'day');
    day.push(d.ms);
    total = d.total;
    hour.push((await timeStats(gatewayUrl, token, bench, 'hour')).ms);
  }
  return { countMs: median(count), dayMs: median(day), hourMs: median(hour), count: rows, total };
}

async function getJson<T>(baseUrl: string, path: string, token: string): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${text.slice(0, 2_000)}`);
  return JSON.parse(text) as T;
}
