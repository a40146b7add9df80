import type { HttpClient } from '../http-client.ts';
import type { Operation, QueryParams, Schema } from '../operation-types.ts';
import type { RequestOptions } from '../request-options.ts';

export type Stats = Schema<'Stats'>;
export type StatsBucket = Schema<'StatsBucket'>;
export type StatsCounts = Schema<'StatsCounts'>;
export type GetStatsQuery = QueryParams<Operation<'/stats', 'get'>>;

/** Event counts per hour or day, and the bounce and complaint rates mailbox providers judge a sender by. */
export class StatsResource {
  constructor(private readonly http: HttpClient) {}

  /**
   * The project's events by type in every bucket of the range (zero-filled, oldest first), their
   * totals and rates. Defaults: `interval: 'day'`, `to` now, `from` 30 days (or 24 hours) before.
   */
  get(query?: GetStatsQuery, options?: RequestOptions): Promise<Stats> {
    return this.http.call('get', '/stats', { query }, options);
  }
}
