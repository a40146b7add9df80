import type { Queryable } from '../pool';

/**
 * How long an Idempotency-Key is remembered (DESIGN §4: 24 h). The gateway's lookup ignores
 * older records and the purge deletes them.
 */
export const IDEMPOTENCY_RETENTION_HOURS = 24;

// A run deletes at most BATCH_SIZE × MAX_BATCHES rows; the next run (every reconcile interval)
// goes on, so a first purge of a long-grown table does not hold up the sender's other tasks.
const BATCH_SIZE = 1_000;
const MAX_BATCHES = 100;

/**
 * Deletes Idempotency-Key records older than IDEMPOTENCY_RETENTION_HOURS, at most `batchSize`
 * per statement so no transaction holds many rows, and at most `maxBatches` statements. Each
 * batch is picked oldest first from the index on `created_at` (whatever the plan), then deleted
 * by ctid. The age is checked again on the row deleted: a record that a send replaced meanwhile
 * (an expired key reused) is fresh and stays. Returns how many were deleted.
 */
export async function purgeExpiredIdempotencyKeys(db: Queryable, options: { batchSize?: number; maxBatches?: number } = {}): Promise<number> {
  const batchSize = options.batchSize ?? BATCH_SIZE;
  const maxBatches = options.maxBatches ?? MAX_BATCHES;
  let deleted = 0;
  for (let batch = 0; batch < maxBatches; batch++) {
    const { rowCount } = await db.query({
      text: `DELETE FROM idempotency_keys
              WHERE ctid = ANY (ARRAY(SELECT ctid FROM idempotency_keys
                                       WHERE created_at < now() - make_interval(hours => $1)
                                       ORDER BY created_at LIMIT $2))
                AND created_at < now() - make_interval(hours => $1)`,
      values: [IDEMPOTENCY_RETENTION_HOURS, batchSize],
    });
    deleted += rowCount ?? 0;
    if ((rowCount ?? 0) < batchSize) break;
  }
  return deleted;
}
