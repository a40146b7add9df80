import type { Queryable } from './pool';

/**
 * Runs a retention statement page by page along a primary key of text ids: `statement(after)`
 * reads the next page of ids after `after`, deletes what it may of it, and answers
 * `{last, deleted}`: that page's last id (null once there is no page) and how many it deleted.
 * Rows a page keeps are passed, not read again by the next. Returns how many were deleted.
 */
export async function deletePageByPage(db: Queryable, statement: (after: string) => { text: string; values: unknown[] }): Promise<number> {
  let after = '';
  let deleted = 0;
  for (;;) {
    const { rows } = await db.query<{ last: string | null; deleted: string }>(statement(after));
    const row = rows[0];
    deleted += Number(row?.deleted ?? 0);
    if (!row?.last) return deleted;
    after = row.last;
  }
}
