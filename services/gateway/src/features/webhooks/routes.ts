import { scopedProjectId } from '../../auth/auth-context';
import { listQueryFor, toPage } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { deletedSchema, idParams, listSchema } from '../../schemas/common';
import { changeWebhook, createWebhook, getWebhook, listProjectWebhooks, removeWebhook, rotateSecret } from './manage-webhooks';
import { presentWebhook, presentWebhookWithSecret } from './present';
import { createWebhookRequest, updateWebhookRequest, webhookSchema, webhookWithSecretSchema } from './schemas';

const URL_RULES =
  'The URL must be http(s), without a user name or password, and its host must not be (or resolve only to) a loopback, private or link-local address unless the installation allows private networks; a name that does not resolve is refused too. An endpoint with `routeId` (a route of this project) may subscribe only to route-scoped types (`email.received`). Each broken rule is 422 `validation_error` naming the field.';

/** Endpoints: create, read, change, delete, and rotate their secret (DESIGN §4 and §5). */
export const webhookEndpointRoutes = [
  defineRoute({
    method: 'post',
    path: '/webhooks',
    operationId: 'createWebhook',
    summary: 'Create a webhook endpoint',
    description: `It receives the events of the types it subscribes to that are created from now on. The answer carries its signing \`secret\`, shown only here (and after a rotation). ${URL_RULES}`,
    tag: 'Webhooks',
    access: { kind: 'project' },
    body: createWebhookRequest,
    success: { status: 201, description: 'The endpoint, with its secret shown this once.', schema: webhookWithSecretSchema },
    errors: [],
    async handler({ body, auth, ctx }) {
      const { webhook, secret } = await createWebhook(ctx.webhookEndpoints, scopedProjectId(auth), body);
      return presentWebhookWithSecret(webhook, secret);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/webhooks',
    operationId: 'listWebhooks',
    summary: "List a project's webhook endpoints",
    tag: 'Webhooks',
    access: { kind: 'project' },
    query: listQueryFor('webhook'),
    success: { status: 200, description: 'Endpoints, newest first, without their secrets.', schema: listSchema(webhookSchema) },
    errors: [],
    async handler({ query, auth, ctx }) {
      return toPage(await listProjectWebhooks(ctx.pool, scopedProjectId(auth), query), query, presentWebhook);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/webhooks/{id}',
    operationId: 'getWebhook',
    summary: 'Get a webhook endpoint',
    tag: 'Webhooks',
    access: { kind: 'project' },
    params: idParams,
    success: { status: 200, description: 'The endpoint, without its secret.', schema: webhookSchema },
    errors: ['not_found'],
    async handler({ params, auth, ctx }) {
      return presentWebhook(await getWebhook(ctx.pool, scopedProjectId(auth), params.id));
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/webhooks/{id}',
    operationId: 'updateWebhook',
    summary: 'Change a webhook endpoint',
    description: `\`enabled: false\` disables it (\`disabledReason: "manual"\`); \`enabled: true\` re-enables a disabled one, which then receives the events created from that moment (not those of the time it was disabled: use recover for those). \`routeId: null\` and \`description: null\` clear them. ${URL_RULES}`,
    tag: 'Webhooks',
    access: { kind: 'project' },
    params: idParams,
    body: updateWebhookRequest,
    success: { status: 200, description: 'The updated endpoint.', schema: webhookSchema },
    errors: ['not_found'],
    async handler({ params, body, auth, ctx }) {
      return presentWebhook(await changeWebhook(ctx.webhookEndpoints, scopedProjectId(auth), params.id, body));
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/webhooks/{id}',
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook endpoint',
    description: 'Its pending deliveries and its attempt log go with it.',
    tag: 'Webhooks',
    access: { kind: 'project' },
    params: idParams,
    success: { status: 200, description: 'The endpoint was deleted.', schema: deletedSchema('webhook') },
    errors: ['not_found'],
    async handler({ params, auth, ctx }) {
      await removeWebhook(ctx.pool, scopedProjectId(auth), params.id);
      return { object: 'webhook', id: params.id, deleted: true };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/webhooks/{id}/rotate-secret',
    operationId: 'rotateWebhookSecret',
    summary: "Rotate a webhook endpoint's secret",
    description:
      'Answers the endpoint with its new `secret`, shown only here. For the next 24 hours every delivery carries two `webhook-signature` entries (the new secret and the one replaced), so receivers can switch without rejecting a delivery; `X-Service-Signature` uses the new secret at once. Rotating again within the 24 hours drops the older secret.',
    tag: 'Webhooks',
    access: { kind: 'project' },
    params: idParams,
    success: { status: 200, description: 'The endpoint, with its new secret shown this once.', schema: webhookWithSecretSchema },
    errors: ['not_found'],
    async handler({ params, auth, ctx }) {
      const { webhook, secret } = await rotateSecret(ctx.webhookEndpoints, scopedProjectId(auth), params.id);
      return presentWebhookWithSecret(webhook, secret);
    },
  }),
];
