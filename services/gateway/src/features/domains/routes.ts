import { presentDomain } from '@mailroom/db';
import { z } from 'zod';
import { scopedProjectId } from '../../auth/auth-context';
import type { GatewayContext } from '../../context';
import { listQueryFor, toPage } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { deletedSchema, idParams, listSchema } from '../../schemas/common';
import { domainNameField, domainSchema } from './domain-schema';
import { createDomain, getDomain, listProjectDomains, removeDomain, rotateDkim, verifyDomain } from './manage-domains';

const present = (ctx: GatewayContext) => (row: Parameters<typeof presentDomain>[0]) => presentDomain(row, ctx.domains.settings);

export const domainRoutes = [
  defineRoute({
    method: 'post',
    path: '/domains',
    operationId: 'createDomain',
    summary: 'Add a sending domain',
    description:
      'Generates a DKIM key (RSA 2048) and a verification token, and answers the DNS records to publish. Mail from the domain is signed, and its return path aligned, once it is verified. Several projects may add the same name; only the first to verify it can use it.',
    tag: 'Domains',
    access: { kind: 'project' },
    body: z.object({ name: domainNameField }).meta({ id: 'CreateDomainRequest' }),
    success: { status: 201, description: 'The new domain and the records to publish.', schema: domainSchema },
    errors: ['conflict'],
    async handler({ body, auth, ctx }) {
      return present(ctx)(await createDomain(ctx.pool, ctx.domains, scopedProjectId(auth), body.name));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/domains',
    operationId: 'listDomains',
    summary: "List a project's sending domains",
    tag: 'Domains',
    access: { kind: 'project' },
    query: listQueryFor('domain'),
    success: { status: 200, description: 'Domains, newest first.', schema: listSchema(domainSchema) },
    errors: [],
    async handler({ query, auth, ctx }) {
      return toPage(await listProjectDomains(ctx.pool, scopedProjectId(auth), query), query, present(ctx));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/domains/{id}',
    operationId: 'getDomain',
    summary: 'Get a sending domain and the state of its records',
    tag: 'Domains',
    access: { kind: 'project' },
    params: idParams,
    success: { status: 200, description: 'The domain.', schema: domainSchema },
    errors: ['not_found'],
    async handler({ params, auth, ctx }) {
      return present(ctx)(await getDomain(ctx.pool, scopedProjectId(auth), params.id));
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/domains/{id}',
    operationId: 'deleteDomain',
    summary: 'Delete a sending domain',
    description: 'Its mail is no longer signed, and its claim on the name is released for another project to verify.',
    tag: 'Domains',
    access: { kind: 'project' },
    params: idParams,
    success: { status: 200, description: 'The domain was deleted.', schema: deletedSchema('domain') },
    errors: ['not_found'],
    async handler({ params, auth, ctx }) {
      await removeDomain(ctx.pool, scopedProjectId(auth), params.id);
      ctx.verifiedDomains.forget(scopedProjectId(auth));
      return { object: 'domain', id: params.id, deleted: true };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/domains/{id}/verify',
    operationId: 'verifyDomain',
    summary: "Look the domain's records up now",
    description: 'Answers the domain with what was found. The records are also looked up on a schedule, with backoff while they are missing.',
    tag: 'Domains',
    access: { kind: 'project' },
    params: idParams,
    success: { status: 200, description: 'The domain, as just checked.', schema: domainSchema },
    errors: ['not_found'],
    async handler({ params, auth, ctx }) {
      const domain = await verifyDomain(ctx.pool, ctx.domains, scopedProjectId(auth), params.id);
      ctx.verifiedDomains.forget(scopedProjectId(auth));
      return present(ctx)(domain);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/domains/{id}/rotate-dkim',
    operationId: 'rotateDomainDkim',
    summary: 'Rotate the DKIM key',
    description:
      'Adds a record with a new selector (`keyState: "next"`). Mail keeps being signed with the current key until the new record is verified; then the new key is used and the old record stays listed (`keyState: "previous"`) for 7 days, so mail in flight still verifies.',
    tag: 'Domains',
    access: { kind: 'project' },
    params: idParams,
    success: { status: 200, description: 'The domain with the new record to publish.', schema: domainSchema },
    errors: ['not_found'],
    async handler({ params, auth, ctx }) {
      return present(ctx)(await rotateDkim(ctx.pool, ctx.domains, scopedProjectId(auth), params.id));
    },
  }),
];
