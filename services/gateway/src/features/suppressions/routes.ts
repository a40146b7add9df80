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

/** Newest first; `after` is the address of the last one seen. */
async function listSuppressions(db: Database, projectId: string, query: ListQuery) {
  const cursor = query.after ? await db.suppression.findUnique({ where: { projectId_address: { projectId, address: query.after.toLowerCase() } } }) : null;
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
      const { count } = await ctx.db.suppression.deleteMany({ where: { projectId: scopedProjectId(auth), address: params.email } });
      if (count === 0) throw notFound('suppression');
      return { object: 'suppression', id: params.email, deleted: true };
    },
  }),
];
