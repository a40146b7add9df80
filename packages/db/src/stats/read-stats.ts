import type { Queryable } from '../pool';
import { STATS_CONSUMER } from './roll-up-stats';
import { COUNTED_EVENT, STAT_TYPES, type StatCounts, zeroCounts } from './stat-types';

export type StatsInterval = 'hour' | 'day';

export const INTERVAL_MS: Record<StatsInterval, number> = { hour: 3_600_000, day: 86_400_000 };

export interface StatsRange {
  projectId: string;
  /** Aligned to the interval (UTC), inclusive. */
  from: Date;
  /** Aligned to the interval (UTC), exclusive; after `from`. */
  to: Date;
  interval: StatsInterval;
}

export interface StatsBucket {
  start: Date;
  counts: StatCounts;
}

/**
 * The project's counted events (`COUNTED_EVENT`) per bucket of the range, every bucket present,
 * oldest first, zero-filled. One statement, so one snapshot: the hourly rollup up to the `stats`
 * cursor plus the events past that cursor, aggregated live. The rollup and its cursor move in
 * one transaction, so every event is counted exactly once, whether the rollup has run or not.
 */
export async function readStats(db: Queryable, range: StatsRange): Promise<StatsBucket[]> {
  const { rows } = await db.query<{ start_ms: number; type: keyof typeof STAT_TYPES; count: string }>({
    name: 'mailroom-read-stats',
    text: `SELECT (extract(epoch FROM date_trunc($4, c.hour)) * 1000)::float8 AS start_ms, c.type, sum(c.count)::text AS count
             FROM (SELECT hour, type, count
                     FROM stats_hourly
                    WHERE project_id = $1 AND hour >= ($2::timestamptz AT TIME ZONE 'UTC') AND hour < ($3::timestamptz AT TIME ZONE 'UTC')
                   UNION ALL
                   SELECT date_trunc('hour', email_events.created_at), email_events.type, count(*)
                     FROM email_events
                    WHERE (email_events.xact_id, email_events.position) >
                          (coalesce((SELECT xact_id FROM outbox_cursors WHERE consumer = $5), '0'::xid8),
                           coalesce((SELECT position FROM outbox_cursors WHERE consumer = $5), 0))
                      AND email_events.project_id = $1
                      AND email_events.created_at >= ($2::timestamptz AT TIME ZONE 'UTC')
                      AND email_events.created_at < ($3::timestamptz AT TIME ZONE 'UTC')
                      AND ${COUNTED_EVENT}
                    GROUP BY 1, 2) c
            GROUP BY 1, 2`,
    values: [range.projectId, range.from.toISOString(), range.to.toISOString(), range.interval, STATS_CONSUMER],
  });
  const step = INTERVAL_MS[range.interval];
  const buckets: StatsBucket[] = [];
  const byStart = new Map<number, StatCounts>();
  for (let start = range.from.getTime(); start < range.to.getTime(); start += step) {
    const counts = zeroCounts();
    buckets.push({ start: new Date(start), counts });
    byStart.set(start, counts);
  }
  for (const row of rows) {
    const counts = byStart.get(Number(row.start_ms));
    if (counts) counts[STAT_TYPES[row.type]] += Number(row.count);
  }
  return buckets;
}
