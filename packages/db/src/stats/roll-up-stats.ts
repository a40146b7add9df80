import { lockOutboxCursor, moveOutboxCursor, READABLE_AFTER_CURSOR } from '../events';
import { inTransaction, type Pool } from '../pool';
import { COUNTED_EVENT } from './stat-types';

/** The outbox follower whose cursor the stats rollup moves (a row of `outbox_cursors`). */
export const STATS_CONSUMER = 'stats';

export interface RollUpResult {
  /** Events read past the cursor (0: caught up, or another replica is rolling up right now). */
  events: number;
  /** Another transaction held the cursor: nothing was done. */
  busy: boolean;
}

/**
 * Adds the next `limit` events after the `stats` cursor to `stats_hourly` (per project, UTC
 * hour and type; only what /stats counts) and moves the cursor past them, in one transaction
 * under the cursor row's lock: a crash leaves both as they were, and a second replica skips
 * (`busy`) instead of counting the same events twice. Events are read by `readOutbox`'s rule,
 * so none that commits late is ever passed. The aggregation stays in PostgreSQL: no event row
 * is sent to the process.
 */
export async function rollUpStats(pool: Pool, limit: number): Promise<RollUpResult> {
  return inTransaction(pool, async (client) => {
    const cursor = await lockOutboxCursor(client, STATS_CONSUMER, { skipLocked: true });
    if (!cursor) return { events: 0, busy: true };
    const { rows } = await client.query<{ events: string; xact_id: string | null; position: string | null }>({
      name: 'mailroom-stats-roll-up',
      text: `WITH page AS MATERIALIZED (
               SELECT email_events.project_id, email_events.type, email_events.created_at,
                      email_events.xact_id, email_events.position, ${COUNTED_EVENT} AS counted
                 FROM email_events
                WHERE ${READABLE_AFTER_CURSOR}
                ORDER BY email_events.xact_id, email_events.position
                LIMIT $3
             ), added AS (
               INSERT INTO stats_hourly (project_id, hour, type, count)
               SELECT project_id, date_trunc('hour', created_at), type, count(*)
                 FROM page WHERE counted
                GROUP BY 1, 2, 3
               ON CONFLICT (project_id, hour, type) DO UPDATE SET count = stats_hourly.count + excluded.count
             ), last AS (
               SELECT xact_id, position FROM page ORDER BY xact_id DESC, position DESC LIMIT 1
             )
             SELECT (SELECT count(*) FROM page)::text AS events, last.xact_id::text AS xact_id, last.position::text AS position
               FROM (SELECT 1) one LEFT JOIN last ON true`,
      values: [cursor.xactId, cursor.position, limit],
    });
    const row = rows[0];
    if (!row || row.xact_id === null || row.position === null) return { events: 0, busy: false };
    await moveOutboxCursor(client, STATS_CONSUMER, { xactId: row.xact_id, position: row.position });
    return { events: Number(row.events), busy: false };
  });
}

/** Rolls up pages of `pageSize` until the outbox has caught up (or another replica holds the cursor); answers the events added. */
export async function rollUpAllStats(pool: Pool, pageSize = 20_000): Promise<number> {
  let total = 0;
  for (;;) {
    const { events, busy } = await rollUpStats(pool, pageSize);
    total += events;
    if (busy || events < pageSize) return total;
  }
}
