import { createApiToken } from './api';
import { deleteRedisKeys } from './redis-keys';
import { type BenchEnvironment, startGateway } from './services';
import { catchUpRollup, countedOf, measureStatsRound, openStatsBench, seedStatsEvents, type StatsSample, type StatsSettings, timeStats } from './stats';
import { median, type TableRow, verdictOf } from './table';

/** /stats must answer no slower than the plain count: ratio = count ms / the slower /stats interval's ms. */
const TARGET = 1;

export interface StatsScenarioResult {
  baseline: { samples: StatsSample[]; median: number };
  ours: { samples: StatsSample[]; median: number };
  ratio: number | undefined;
  target: number;
  verdict: string;
  notes: string[];
  /** interval=hour, same range. */
  hourly: { median: number; ratio: number | undefined };
  rollup: { events: number; seconds: number; perSecond: number };
  /** Before the rollup ran: every event aggregated live (one call). */
  withoutRollupMs: number;
  /** After `tail` more events past the cursor: medians of /stats (day) and of the count. */
  withTail: { events: number; statsMs: number; countMs: number };
}

const ms = (n: number) => `${n.toFixed(n < 10 ? 1 : 0)} ms`;

/**
 * `pnpm bench stats`: a project with `events` events (seeded in SQL, not timed), the rollup
 * caught up (timed on its own), then alternating rounds of a plain `SELECT count(*)` over the
 * project's rows in the range and `GET /stats` over the same range through the real gateway.
 */
export async function runStatsScenario(options: {
  env: BenchEnvironment;
  queuePrefix: string;
  redisUrl: string;
  rounds: number;
  settings: StatsSettings;
  log: (line: string) => void;
}): Promise<{ result: StatsScenarioResult; row: TableRow }> {
  const { env, log, settings } = options;
  log(`\n── stats: GET /stats over ${settings.events.toLocaleString('en-US')} events spread over ${settings.days} days, beside SELECT count(*) over the same rows`);
  const gateway = await startGateway(env, options.queuePrefix);
  const token = await createApiToken(gateway.url);
  const bench = await openStatsBench(env.databaseUrl, gateway.url, token, settings.days);
  const notes: string[] = [];
  try {
    const seedStart = performance.now();
    await seedStatsEvents(bench, settings.events, 'main');
    log(`  seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s (not timed), plus ${Math.ceil(settings.events / 10).toLocaleString('en-US')} in another project`);

    const withoutRollupMs = (await timeStats(gateway.url, token, bench, 'day')).ms;
    log(`  before the rollup (all ${settings.events.toLocaleString('en-US')} events aggregated live): /stats ${ms(withoutRollupMs)}`);
    const caughtUp = await catchUpRollup(bench, settings.events + Math.ceil(settings.events / 10));
    const rollup = { ...caughtUp, perSecond: caughtUp.events / caughtUp.seconds };
    log(`  rollup caught up: ${caughtUp.events.toLocaleString('en-US')} events in ${caughtUp.seconds.toFixed(1)} s (${Math.round(rollup.perSecond).toLocaleString('en-US')} events/s)`);

    const samples: (StatsSample & { count: number; total: number })[] = [];
    for (let round = 1; round <= options.rounds; round++) {
      const r = await measureStatsRound(gateway.url, token, bench, settings.samples);
      samples.push(r);
      log(`  round ${round}/${options.rounds}: count ${ms(r.countMs)} (${r.count.toLocaleString('en-US')} rows)   /stats day ${ms(r.dayMs)}   hour ${ms(r.hourMs)} (medians of ${settings.samples})`);
      if (r.total !== countedOf(settings.events)) notes.push(`round ${round}: /stats counted ${r.total} events, expected ${countedOf(settings.events)}`);
      if (r.count !== settings.events) notes.push(`round ${round}: the count saw ${r.count} rows, expected ${settings.events}`);
    }

    // A tail past the cursor, as between two runs of the rollup under load.
    await seedStatsEvents(bench, settings.tail, 'tail');
    const tail = await measureStatsRound(gateway.url, token, bench, settings.samples);
    const withTail = { events: settings.tail, statsMs: tail.dayMs, countMs: tail.countMs };
    log(`  with ${settings.tail.toLocaleString('en-US')} events past the rollup's cursor: /stats day ${ms(tail.dayMs)}, count ${ms(tail.countMs)}`);
    if (tail.total !== countedOf(settings.events) + countedOf(settings.tail)) notes.push(`with the tail: /stats counted ${tail.total}, expected ${countedOf(settings.events) + countedOf(settings.tail)}`);

    log('  stats ratio = count ms / /stats ms (the slower interval): above 1, /stats answers faster than the count');
    const b = median(samples.map((s) => s.countMs));
    const d = median(samples.map((s) => s.dayMs));
    const h = median(samples.map((s) => s.hourMs));
    // Judged by the slower of the two intervals.
    const o = Math.max(d, h);
    const ratio = o > 0 ? b / o : undefined;
    const result: StatsScenarioResult = {
      baseline: { samples, median: b },
      ours: { samples, median: o },
      ratio,
      target: TARGET,
      verdict: notes.length > 0 ? 'MISSED' : verdictOf(ratio, TARGET),
      notes,
      hourly: { median: h, ratio: h > 0 ? b / h : undefined },
      rollup,
      withoutRollupMs,
      withTail,
    };
    const row: TableRow = {
      scenario: 'stats',
      baseline: `${ms(b)} (count)`,
      ours: `${ms(d)} (day), ${ms(h)} (hour)`,
      ratio,
      target: TARGET,
      verdict: notes.length > 0 ? 'MISSED' : verdictOf(ratio, TARGET),
    };
    return { result, row };
  } finally {
    await bench.close();
    await gateway.child.stop();
    await deleteRedisKeys(options.redisUrl, options.queuePrefix);
  }
}
