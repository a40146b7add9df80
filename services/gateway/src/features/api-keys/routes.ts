import type { ApiKey } from '@mailroom/db';
import { z } from 'zod';
import { scopedProjectId } from '../../auth/auth-context';
import { listQueryFor, toPage } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { deletedSchema, idParams, listSchema, nameField, timestamp } from '../../schemas/common';
import { createApiKey, listApiKeys, revokeApiKey } from './api-keys';

const permission = z.enum(['full_access', 'sending_access']).meta({
  description: '`full_access`: everything in the project. `sending_access`: only POST /emails and /emails/batch.',
});

const apiKeySchema = z
  .object({
    object: z.literal('api_key'),
    id: z.string(),
    name: z.string(),
    permission,
    tokenStart: z.string().meta({ description: 'The first characters of the token, to tell keys apart.' }),
    createdAt: timestamp,
    lastUsedAt: timestamp.nullable().meta({ description: 'Approximate; updated at most once a minute.' }),
  })
  .meta({ id: 'ApiKey' });

const createdApiKeySchema = z
  .object({
    object: z.literal('api_key'),
    id: z.string(),
    name: z.string(),
    permission,
    token: z.string().meta({ description: 'The Bearer token. Shown only in this response.', example: 'mr_…' }),
    createdAt: timestamp,
  })
  .meta({ id: 'CreatedApiKey' });

const present = (key: ApiKey): z.infer<typeof apiKeySchema> => ({
  object: 'api_key',
  id: key.id,
  name: key.name,
  permission: key.permission,
  tokenStart: key.tokenStart,
  createdAt: key.createdAt.toISOString(),
  lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
});

export const apiKeyRoutes = [
  defineRoute({
    method: 'post',
    path: '/api-keys',
    operationId: 'createApiKey',
    summary: 'Create a project API key',
    tag: 'API keys',
    access: { kind: 'project' },
    body: z.object({ name: nameField, permission: permission.default('full_access') }).meta({ id: 'CreateApiKeyRequest' }),
    success: { status: 201, description: 'The key, with its token shown this once.', schema: createdApiKeySchema },
    errors: [],
    async handler({ body, auth, ctx }) {
      const { key, token } = await createApiKey(ctx.db, scopedProjectId(auth), body);
      return { object: 'api_key', id: key.id, name: key.name, permission: key.permission, token, createdAt: key.createdAt.toISOString() };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api-keys',
    operationId: 'listApiKeys',
    summary: "List a project's API keys (never their tokens)",
    tag: 'API keys',
    access: { kind: 'project' },
    query: listQueryFor('apiKey'),
    success: { status: 200, description: 'Active keys, newest first.', schema: listSchema(apiKeySchema) },
    errors: [],
    async handler({ query, auth, ctx }) {
      return toPage(await listApiKeys(ctx.db, scopedProjectId(auth), query), query, present);
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api-keys/{id}',
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key',
    description: 'Takes effect at once on every gateway replica, and within 2 seconds on a replica that cannot reach Redis.',
    tag: 'API keys',
    access: { kind: 'project' },
    params: idParams,
    success: { status: 200, description: 'The key was revoked.', schema: deletedSchema('api_key') },
    errors: ['not_found'],
    async handler({ params, auth, ctx }) {
      await revokeApiKey(ctx.db, ctx.apiTokens, scopedProjectId(auth), params.id);
      return { object: 'api_key', id: params.id, deleted: true };
    },
  }),
];
