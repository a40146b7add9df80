import { readStats, type StatCounts, type StatsBucket, zeroCounts } from '@mailroom/db';
import { scopedProjectId } from '../../auth/auth-context';
import { defineRoute } from '../../http/route';
import { resolveStatsRange, type ResolvedRange, statsQuery } from './stats-range';
import { type StatsBody, statsSchema } from './stats-schema';

const ratio = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);

function present(range: ResolvedRange, buckets: StatsBucket[]): StatsBody {
  const totals: StatCounts = zeroCounts();
  for (const { counts } of buckets) for (const name of Object.keys(totals) as (keyof StatCounts)[]) totals[name] += counts[name];
  return {
    object: 'stats',
    interval: range.interval,
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    data: buckets.map((b) => ({ start: b.start.toISOString(), ...b.counts })),
    totals,
    bounceRate: ratio(totals.bounced, totals.sent),
    complaintRate: ratio(totals.complained, totals.delivered),
  };
}

export const statsRoutes = [
  defineRoute({
    method: 'get',
    path: '/stats',
    operationId: 'getStats',
    summary: 'Event counts per hour or day, and the bounce and complaint rates',
    description:
      "Counts the project's events by type in every UTC bucket of the range (zero-filled, oldest first), their totals, and the bounce rate (bounced / sent) and complaint rate (complained / delivered) over the range. `from` is truncated down and `to` rounded up to the interval; `from` must be before `to`, and the range may hold at most 1,000 buckets (else 422 `validation_error`). Exact at every moment: an hourly rollup plus the newest events counted live.",
    tag: 'Stats',
    access: { kind: 'project' },
    query: statsQuery,
    success: { status: 200, description: 'The counts.', schema: statsSchema },
    errors: [],
    async handler({ query, auth, ctx }) {
      const range = resolveStatsRange(query);
      return present(range, await readStats(ctx.pool, { projectId: scopedProjectId(auth), ...range }));
    },
  }),
];
