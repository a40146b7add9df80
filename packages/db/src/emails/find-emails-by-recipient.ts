import type { Queryable } from '../pool';

export interface RecipientQuery {
  projectId: string;
  /** Matched case-insensitively and exactly against to, cc and bcc recipients. */
  address: string;
  status?: string | undefined;
  /** Only ids below this one (the last id of the previous page). */
  before?: string | undefined;
  limit: number;
}

/**
 * Ids of the project's emails sent to `address`, newest first. Walks the index on
 * (lower(address), email_id) backwards from `before` and stops after `limit`, so a page costs
 * the same whatever the project's size. The cursor is stated for both tables: the planner does not
 * carry `r.email_id < $4` over to `e.id`, and a merge join then read the project's every email
 * newer than the cursor (278,000 for a page deep in a 480,000-email project).
 */
export async function findEmailIdsByRecipient(db: Queryable, query: RecipientQuery): Promise<string[]> {
  const { rows } = await db.query<{ email_id: string }>({
    text: `SELECT DISTINCT r.email_id
             FROM email_recipients r
             JOIN emails e ON e.id = r.email_id
            WHERE lower(r.address) = lower($2) AND e.project_id = $1
              AND ($3::text IS NULL OR e.status = $3::"DeliveryStatus")
              AND ($4::text IS NULL OR r.email_id < $4)
              AND ($4::text IS NULL OR e.id < $4)
            ORDER BY r.email_id DESC
            LIMIT $5`,
    values: [query.projectId, query.address, query.status ?? null, query.before ?? null, query.limit],
  });
  return rows.map((r) => r.email_id);
}
