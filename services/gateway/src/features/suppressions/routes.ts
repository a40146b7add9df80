import { notFound } from '@mailroom/core';
import type { Database, Suppression } from '@mailroom/db';
import { z } from 'zod';
import { scopedProjectId } from '../../auth/auth-context';
import { listQuery, type ListQuery } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { deletedSchema, listSchema, timestamp } from '../../schemas/common';
import { withAsciiDomain } from '../emails/addresses';

const suppressionSchema = z
  .object({
    object: z.literal('suppression'),
    id: z.string().meta({ description: 'The suppressed address, lower-cased; also its path segment.' }),
    email: z.string(),
    reason: z.enum(['bounce', 'complaint']),
    detail: z.string().nullable().meta({ description: 'The SMTP reply or report that caused it.' }),
    sourceEmailId: z.string().nullable(),
    createdAt: timestamp,
  })
  .meta({ id: 'Suppression' });

const present = (s: Suppression): z.infer<typeof suppressionSchema> => ({
  object: 'suppression',
  id: s.address,
  email: s.address,
  reason: s.reason,
  detail: s.detail,
  sourceEmailId: s.sourceEmailId,
  createdAt: s.createdAt.toISOString(),
});

// Lower-cased, an internationalized domain in its punycode form: as recipients are stored.
const addressParams = z.object({ email: z.string().min(3).max(254).transform((e) => (withAsciiDomain(e) ?? e).toLowerCase()) });

/** How long a removed suppression's place in the list is kept for a page's `after` to name it. */
const REMOVED_PLACE_KEPT_S = 7 * 24 * 3600;

/**
 * Where `after` stands: the suppression it names, else the place of one removed since that page
 * was read (so the next page starts after it, rather than again at the first). Null when it
 * names neither: the first page.
 */
async function cursorOf(db: Database, projectId: string, after: string): Promise<{ createdAt: Date; address: string } | null> {
  const where = { projectId_address: { projectId, address: after.toLowerCase() } };
  return (await db.suppression.findUnique({ where })) ?? (await db.removedSuppression.findUnique({ where }));
}

/** Newest first; `after` is the address of the last one seen. */
async function listSuppressions(db: Database, projectId: string, query: ListQuery) {
  const cursor = query.after ? await cursorOf(db, projectId, query.after) : null;
  const rows = await db.suppression.findMany({
    where: {
      projectId,
      // The `lte` bound repeats what the OR implies, so the index on (project_id, created_at DESC,
      // address) starts at the cursor instead of walking the pages before it.
      ...(cursor
        ? { createdAt: { lte: cursor.createdAt }, OR: [{ createdAt: { lt: cursor.createdAt } }, { createdAt: cursor.createdAt, address: { gt: cursor.address } }] }
        : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { address: 'asc' }],
    take: query.limit + 1,
  });
  return { object: 'list' as const, data: rows.slice(0, query.limit).map(present), hasMore: rows.length > query.limit };
}

export const suppressionRoutes = [
  defineRoute({
    method: 'get',
    path: '/suppressions',
    operationId: 'listSuppressions',
    summary: 'List suppressed recipients',
    description: 'Addresses that hard-bounced (5.1.x) or complained. Sends to them record `suppressed` and are not attempted.',
    tag: 'Suppressions',
    access: { kind: 'project' },
    query: listQuery,
    success: { status: 200, description: 'Suppressions, newest first.', schema: listSchema(suppressionSchema) },
    errors: [],
    async handler({ query, auth, ctx }) {
      return listSuppressions(ctx.db, scopedProjectId(auth), query);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/suppressions/{email}',
    operationId: 'getSuppression',
    summary: 'Get one suppressed recipient',
    tag: 'Suppressions',
    access: { kind: 'project' },
    params: addressParams,
    success: { status: 200, description: 'The suppression.', schema: suppressionSchema },
    errors: ['not_found'],
    async handler({ params, auth, ctx }) {
      const row = await ctx.db.suppression.findUnique({ where: { projectId_address: { projectId: scopedProjectId(auth), address: params.email } } });
      if (!row) throw notFound('suppression');
      return present(row);
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/suppressions/{email}',
    operationId: 'deleteSuppression',
    summary: 'Remove a recipient from the suppression list',
    tag: 'Suppressions',
    access: { kind: 'project' },
    params: addressParams,
    success: { status: 200, description: 'Sends to this address are attempted again.', schema: deletedSchema('suppression') },
    errors: ['not_found'],
    async handler({ params, auth, ctx }) {
      const projectId = scopedProjectId(auth);
      // Removed with its place kept, in one statement, for a page whose `after` names it; places older than a week are let go.
      const removed = await ctx.db.$queryRaw<{ address: string }[]>`
        WITH gone AS (DELETE FROM suppressions WHERE project_id = ${projectId} AND address = ${params.email} RETURNING project_id, address, created_at)
        INSERT INTO removed_suppressions (project_id, address, created_at) SELECT project_id, address, created_at FROM gone
        ON CONFLICT (project_id, address) DO UPDATE SET created_at = EXCLUDED.created_at, removed_at = now()
        RETURNING address`;
      await ctx.db.$executeRaw`DELETE FROM removed_suppressions WHERE removed_at < now() - make_interval(secs => ${REMOVED_PLACE_KEPT_S})`;
      if (removed.length === 0) throw notFound('suppression');
      return { object: 'suppression', id: params.email, deleted: true };
    },
  }),
];
