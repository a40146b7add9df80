import { isId } from '@mailroom/core';
import { z } from 'zod';
import { scopedProjectId } from '../../auth/auth-context';
import { listQueryFor, toPage } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { idParams, listSchema } from '../../schemas/common';
import { getReceivedAttachment, getReceivedEmail, getReceivedRaw, listProjectReceivedEmails } from './received-emails';
import { presentReceivedEmail, presentReceivedSummary, receivedEmailSchema, receivedEmailSummarySchema } from './present';
import { attachmentDisposition, safeContentType, sendDownload } from './send-download';

const routeIdFilter = z
  .string()
  .refine((value) => isId('route', value), 'must be a route id, such as "rt_01KAQ7D1E2F3G4H5J6K7M8N9P0"')
  .optional();

const DOWNLOAD_HEADERS =
  'Served as a download: `Content-Disposition: attachment`, `X-Content-Type-Options: nosniff` and `Content-Security-Policy: sandbox`, so a browser never renders it.';

export const receivedRoutes = [
  defineRoute({
    method: 'get',
    path: '/emails/received',
    operationId: 'listReceivedEmails',
    summary: 'List received emails',
    description:
      'Newest first, without `text`, `html`, `textReply` and `headers` (get one email for those). A message is listed as soon as it is stored; until it is parsed, its parsed fields are null or empty.',
    tag: 'Received emails',
    access: { kind: 'project' },
    query: listQueryFor('receivedEmail').extend({
      routeId: routeIdFilter.meta({ description: 'Only mail that arrived through this route (snake_case `route_id` also accepted).', example: 'rt_01KAQ7D1E2F3G4H5J6K7M8N9P0' }),
      route_id: routeIdFilter.meta({ description: 'The snake_case spelling of `routeId`.' }),
    }),
    success: { status: 200, description: 'Received emails, newest first.', schema: listSchema(receivedEmailSummarySchema) },
    errors: [],
    async handler({ query, auth, ctx }) {
      const routeId = query.routeId ?? query.route_id;
      return toPage(await listProjectReceivedEmails(ctx.pool, scopedProjectId(auth), { ...query, routeId }), query, presentReceivedSummary);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/emails/received/{id}',
    operationId: 'getReceivedEmail',
    summary: 'Get a received email, fully parsed',
    description:
      'Parsed fields (addresses, subject, bodies, headers, attachments, authentication) are null or empty until the message is processed, usually within a second of its arrival; the envelope, size and createdAt are there from the start.',
    tag: 'Received emails',
    access: { kind: 'project' },
    params: idParams,
    success: { status: 200, description: 'The received email.', schema: receivedEmailSchema },
    errors: ['not_found'],
    async handler({ params, auth, ctx }) {
      return presentReceivedEmail(await getReceivedEmail(ctx.pool, scopedProjectId(auth), params.id));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/emails/received/{id}/raw',
    operationId: 'getReceivedEmailRaw',
    summary: 'Download a received email exactly as it arrived',
    description: `The exact bytes received after DATA, as \`message/rfc822\` named \`<id>.eml\`. ${DOWNLOAD_HEADERS}`,
    tag: 'Received emails',
    access: { kind: 'project' },
    params: idParams,
    success: { status: 200, description: 'The raw message.', schema: z.string().meta({ format: 'binary' }), contentType: 'message/rfc822' },
    errors: ['not_found'],
    async handler({ params, auth, ctx, res }) {
      const raw = await getReceivedRaw(ctx.pool, scopedProjectId(auth), params.id);
      sendDownload(res, { body: raw, contentType: 'message/rfc822', disposition: `attachment; filename="${params.id}.eml"` });
      return undefined;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/emails/received/{id}/attachments/{attachmentId}',
    operationId: 'getReceivedAttachment',
    summary: 'Download an attachment of a received email',
    description: `The exact decoded bytes, with the attachment's own content type and file name. ${DOWNLOAD_HEADERS}`,
    tag: 'Received emails',
    access: { kind: 'project' },
    params: z.object({ id: z.string().min(1).max(64), attachmentId: z.string().min(1).max(64) }),
    // Served with the attachment's own type, as the README says: any type (`*/*`), not one.
    success: {
      status: 200,
      description: "The attachment's bytes, with its own content type (`application/octet-stream` when it has no valid one).",
      schema: z.string().meta({ format: 'binary' }),
      contentType: '*/*',
    },
    errors: ['not_found'],
    async handler({ params, auth, ctx, res }) {
      const attachment = await getReceivedAttachment(ctx.pool, scopedProjectId(auth), params.id, params.attachmentId);
      sendDownload(res, {
        body: attachment.content,
        contentType: safeContentType(attachment.contentType),
        disposition: attachmentDisposition(attachment.filename ?? attachment.id),
      });
      return undefined;
    },
  }),
];
