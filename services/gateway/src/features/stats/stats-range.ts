import { MailroomError } from '@mailroom/core';
import { INTERVAL_MS, type StatsInterval } from '@mailroom/db';
import { z } from 'zod';
import { dateTimeField, LATEST_INSTANT_MS } from '../../schemas/common';

/** At most this many buckets in one answer: hours over about 41 days, days over about 2.7 years. */
export const MAX_BUCKETS = 1_000;

/** The span `from` defaults to before `to`: 30 days of days, 24 hours of hours. */
const DEFAULT_SPAN_MS: Record<StatsInterval, number> = { day: 30 * INTERVAL_MS.day, hour: 24 * INTERVAL_MS.hour };

const isoDateTime = (description: string) => dateTimeField().optional().meta({ description });

export const statsQuery = z.object({
  from: isoDateTime('The start of the range (ISO 8601), truncated down to the interval in UTC. Default: `to` minus 30 days (`day`) or 24 hours (`hour`).'),
  to: isoDateTime('The end of the range (ISO 8601, exclusive), rounded up to the interval in UTC. Default: now.'),
  interval: z
    .enum(['hour', 'day'], { error: 'must be "hour" or "day"' })
    .default('day')
    .meta({ description: 'The bucket size: `hour` or `day` (UTC). At most 1,000 buckets: hours cover at most about 41 days.' }),
});

export type StatsQuery = z.output<typeof statsQuery>;

export interface ResolvedRange {
  from: Date;
  to: Date;
  interval: StatsInterval;
}

/**
 * The range a query asks for, with the defaults applied and aligned to whole UTC buckets:
 * `from` truncated down, `to` rounded up. 422 `validation_error` naming the field when `from`
 * is not before `to`, or when the range holds more than `MAX_BUCKETS` buckets.
 */
export function resolveStatsRange(query: StatsQuery, now = Date.now()): ResolvedRange {
  const { interval } = query;
  const step = INTERVAL_MS[interval];
  const to = query.to === undefined ? now : Date.parse(query.to);
  const from = query.from === undefined ? to - DEFAULT_SPAN_MS[interval] : Date.parse(query.from);
  if (from >= to) throw new MailroomError('validation_error', '`from`: must be before `to`.');
  // Epoch milliseconds are whole UTC hours and days apart, so alignment is arithmetic.
  const alignedFrom = Math.floor(from / step) * step;
  const alignedTo = Math.ceil(to / step) * step;
  // The last bucket ends in year 9999 at the latest (dateTimeField's range).
  if (alignedTo > LATEST_INSTANT_MS) throw new MailroomError('validation_error', `\`to\`: rounded up to the ${interval}, it must end by ${new Date(LATEST_INSTANT_MS + 1 - step).toISOString()}.`);
  const buckets = (alignedTo - alignedFrom) / step;
  if (buckets > MAX_BUCKETS) {
    throw new MailroomError(
      'validation_error',
      `\`from\`: the range holds ${buckets} ${interval} buckets; at most ${MAX_BUCKETS} are answered (hours over about 41 days). Narrow the range or use interval=day.`,
    );
  }
  return { from: new Date(alignedFrom), to: new Date(alignedTo), interval };
}
