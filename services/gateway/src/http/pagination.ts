import { ID_PREFIX, type IdKind, isId } from '@mailroom/core';
import { z } from 'zod';

// One message for every way a limit can be wrong, with the real bounds: zod's own would name
// 2^53 for a huge number, or "NaN" for a word.
const LIMIT_MESSAGE = { error: 'must be a whole number from 1 to 100' };

// Decimal digits only: Number() would also take `0x10`, `1e1` and ` 1`.
const wholeNumber = (value: unknown) => (typeof value === 'string' && /^[0-9]{1,9}$/.test(value) ? Number(value) : value);

/** `limit` (1–100, default 20) and `after` (the last id seen), as every list takes them. */
export const listQuery = z.object({
  limit: z
    .preprocess(wholeNumber, z.number(LIMIT_MESSAGE).int(LIMIT_MESSAGE).min(1, LIMIT_MESSAGE).max(100, LIMIT_MESSAGE))
    .default(20)
    .meta({ description: 'How many items to answer, 1–100.' }),
  after: z.string().min(1).max(64).optional().meta({ description: 'The id of the last item of the previous page; answers the items after it.' }),
});

/**
 * `listQuery` for a list whose `after` is an id of one kind: anything else is a 422 naming the
 * form, rather than a page picked by comparing junk with ids (an empty page for `after=aaa`,
 * the first page for `after=zzz`).
 */
export function listQueryFor(kind: IdKind) {
  const prefix = ID_PREFIX[kind];
  return listQuery.extend({
    after: z
      .string()
      .refine((value) => isId(kind, value), { error: `must be an id from an earlier page (${prefix}_ and 26 characters)` })
      .optional()
      .meta({ description: `The id of the last item of the previous page (\`${prefix}_…\`); answers the items after it.` }),
  });
}

export type ListQuery = z.output<typeof listQuery>;

export interface ListPage<T> {
  object: 'list';
  data: T[];
  hasMore: boolean;
}

/** Prisma arguments for one page, newest first: ids sort by creation time. */
export function pageArgs(query: ListQuery) {
  return {
    where: query.after ? { id: { lt: query.after } } : {},
    orderBy: { id: 'desc' as const },
    take: query.limit + 1,
  };
}

/** Turns the `limit + 1` rows a page query fetched into a list body. */
export function toPage<Row, T>(rows: Row[], query: ListQuery, present: (row: Row) => T): ListPage<T> {
  return { object: 'list', data: rows.slice(0, query.limit).map(present), hasMore: rows.length > query.limit };
}
