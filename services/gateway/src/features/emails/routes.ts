import { DELIVERY_STATUSES } from '@mailroom/core';
import { z } from 'zod';
import { scopedProjectId } from '../../auth/auth-context';
import type { GatewayContext } from '../../context';
import { listQueryFor, toPage } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { idParams, listSchema } from '../../schemas/common';
import { checkFromDomains } from '../domains/sending-domains';
import { acceptEmails } from './accept-emails';
import { cancelEmail, getEmail, getLinkClicks, listEmails } from './emails';
import { hashRequest, readIdempotencyKey, type IdempotencyRequest } from './idempotency';
import { emailSchema, emailSummarySchema, linkClicksSchema, presentEmail, presentEmailSummary, presentLinkClicks } from './present';
import { batchSchema, sendEmailSchema } from './send-schema';
import type { Request } from 'express';

// DESIGN §4: request bodies are limited to 1 MB, except sends.
const SEND_BODY_LIMIT = '40mb';
// A bare address, as recipients are stored; the longest an address can be is 254 characters.
const recipientFilter = z.string().trim().max(254).pipe(z.email({ message: 'must be one email address, such as "ada@example.com"' }));
// Beyond what the access rule and the body imply (see routeErrors).
const sendErrors = ['invalid_idempotency_key', 'invalid_idempotent_request', 'concurrent_idempotent_requests', 'domain_not_verified'] as const;
const SIGNING =
  ' With `REQUIRE_VERIFIED_DOMAINS` (the default in production), a `from` whose domain is not verified in the project is 403 `domain_not_verified`; without it, such mail is sent unsigned and the answer says `unsigned: true`.';
const sentSchema = z.object({
  id: z.string(),
  unsigned: z.literal(true).optional().meta({ description: 'Present when the from domain is not verified in the project: the mail goes without a DKIM signature or an aligned return path.' }),
});
/** `{id}`, and `unsigned: true` when its from domain is not verified. */
const sent = (id: string | undefined, unsigned: boolean | undefined) => ({ id: id ?? '', ...(unsigned ? { unsigned: true as const } : {}) });

function idempotencyOf(req: Request, endpoint: IdempotencyRequest['endpoint'], body: unknown): IdempotencyRequest | null {
  const key = readIdempotencyKey(req);
  return key === null ? null : { endpoint, key, requestHash: hashRequest(body) };
}

const acceptDeps = (ctx: GatewayContext) => ({ pool: ctx.pool, batcher: ctx.acceptBatcher, sendQueue: ctx.sendQueue, logger: ctx.logger });

export const emailRoutes = [
  defineRoute({
    method: 'post',
    path: '/emails',
    operationId: 'sendEmail',
    summary: 'Send an email',
    description:
      `Answers once the email and its recipients are committed. With an \`Idempotency-Key\` (1–256 characters, kept 24 h per project), a repeat with the same body answers the original id and sends nothing; a different body is 409 \`invalid_idempotent_request\`; a repeat while the first is in flight is 409 \`concurrent_idempotent_requests\`.${SIGNING}`,
    tag: 'Emails',
    access: { kind: 'project', sending: true },
    body: sendEmailSchema,
    bodyLimit: SEND_BODY_LIMIT,
    success: { status: 200, description: 'The email was accepted.', schema: sentSchema },
    errors: [...sendErrors],
    checkHeaders: readIdempotencyKey,
    nullIsAbsent: true,
    async handler({ body, auth, ctx, req }) {
      const projectId = scopedProjectId(auth);
      const [unsigned] = await checkFromDomains(ctx.verifiedDomains, projectId, [body.from.address], ctx.config.requireVerifiedDomains);
      return acceptEmails(acceptDeps(ctx), projectId, [body], idempotencyOf(req, 'emails', req.body), ([id]) => sent(id, unsigned));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/emails/batch',
    operationId: 'sendEmailBatch',
    summary: 'Send up to 100 emails at once',
    description: `A JSON array of sends, validated all-or-nothing: one invalid item refuses the whole batch and stores nothing.${SIGNING}`,
    tag: 'Emails',
    access: { kind: 'project', sending: true },
    body: batchSchema,
    bodyLimit: SEND_BODY_LIMIT,
    success: { status: 200, description: 'Every email was accepted, in request order.', schema: z.object({ data: z.array(sentSchema) }) },
    errors: [...sendErrors],
    checkHeaders: readIdempotencyKey,
    nullIsAbsent: true,
    async handler({ body, auth, ctx, req }) {
      const projectId = scopedProjectId(auth);
      const unsigned = await checkFromDomains(ctx.verifiedDomains, projectId, body.map((send) => send.from.address), ctx.config.requireVerifiedDomains);
      return acceptEmails(acceptDeps(ctx), projectId, body, idempotencyOf(req, 'emails/batch', req.body), (ids) => ({ data: ids.map((id, i) => sent(id, unsigned[i])) }));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/emails',
    operationId: 'listEmails',
    summary: 'List sent emails',
    tag: 'Emails',
    access: { kind: 'project' },
    query: listQueryFor('email').extend({
      status: z.enum(DELIVERY_STATUSES).optional(),
      to: recipientFilter.optional().meta({ description: 'Only emails with this recipient (to, cc or bcc), matched exactly but case-insensitively.', example: 'ada@example.com' }),
    }),
    success: { status: 200, description: 'Emails, newest first, without bodies and timelines.', schema: listSchema(emailSummarySchema) },
    errors: [],
    async handler({ query, auth, ctx }) {
      return toPage(await listEmails(ctx.db, ctx.pool, scopedProjectId(auth), query), query, presentEmailSummary);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/emails/{id}',
    operationId: 'getEmail',
    summary: 'Get an email with its recipients and timeline',
    tag: 'Emails',
    access: { kind: 'project' },
    params: idParams,
    success: { status: 200, description: 'The email.', schema: emailSchema },
    errors: ['not_found'],
    async handler({ params, auth, ctx }) {
      return presentEmail(await getEmail(ctx.db, scopedProjectId(auth), params.id));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/emails/{id}/clicks',
    operationId: 'listEmailClicks',
    summary: 'Clicks per link of a tracked email',
    description:
      'One item per link clicked (the URL it redirects to), most clicked by people first: `clicks` and `uniqueClicks` count people, `botClicks` the link scanners and proxies (`is_bot` events). All links at once (`hasMore` is always false); empty when nothing was clicked or click tracking was off.',
    tag: 'Emails',
    access: { kind: 'project' },
    params: idParams,
    success: { status: 200, description: 'Clicks per link.', schema: listSchema(linkClicksSchema) },
    errors: ['not_found'],
    async handler({ params, auth, ctx }) {
      const clicks = await getLinkClicks(ctx.db, ctx.pool, scopedProjectId(auth), params.id);
      return { object: 'list' as const, data: clicks.map(presentLinkClicks), hasMore: false };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/emails/{id}/cancel',
    operationId: 'cancelEmail',
    summary: 'Cancel a scheduled email',
    description: 'Only an email still `scheduled` can be canceled; anything else is 409 `conflict`.',
    tag: 'Emails',
    access: { kind: 'project' },
    params: idParams,
    success: { status: 200, description: 'The canceled email.', schema: emailSchema },
    errors: ['not_found', 'conflict'],
    async handler({ params, auth, ctx }) {
      const projectId = scopedProjectId(auth);
      await cancelEmail(ctx.db, projectId, params.id);
      return presentEmail(await getEmail(ctx.db, projectId, params.id));
    },
  }),
];
