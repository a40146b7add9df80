import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { ERROR_STATUS, WEBHOOK_EVENT_TYPES, type ErrorName } from '@mailroom/core';
import { routeErrors, type Access, type AnyRoute } from '../http/route';
import { errorSchema } from '../schemas/common';

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

const DESCRIPTION = `Mailroom sends email, receives inbound email, tracks opens and clicks, and pushes signed events to webhooks.

Authenticate with a project API key (\`Authorization: Bearer mr_…\`) or a console session (\`X-Service-Session\` with \`X-Project-Id\`).
Every failure answers \`{"name", "message", "statusCode"}\`. Inputs also accept the snake_case spelling of each field.`;

/** Which security schemes a route accepts. */
function securityFor(access: Access): Record<string, string[]>[] {
  if (access.kind === 'public') return [];
  if (access.kind === 'user') return access.sessionOnly ? [{ consoleSession: [] }] : [{ apiToken: [] }, { consoleSession: [] }];
  const session = { consoleSession: [], consoleProject: [] };
  if (access.sessionOnly || access.ownerOnly) return [session];
  return [{ apiToken: [] }, session];
}

function errorResponses(names: readonly ErrorName[]) {
  const byStatus = new Map<number, ErrorName[]>();
  for (const name of [...names, 'internal_server_error', 'service_unavailable'] as ErrorName[]) {
    const status = ERROR_STATUS[name];
    byStatus.set(status, [...new Set([...(byStatus.get(status) ?? []), name])]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, group]) => [
      String(status),
      { description: group.map((n) => `\`${n}\``).join(', '), content: { 'application/json': { schema: errorSchema } } },
    ]),
  );
}

/** The OpenAPI 3.1 document, generated from the same route table that validates requests. */
export function buildOpenApiDocument(routes: readonly AnyRoute[], serverUrl: string): OpenApiDocument {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'apiToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'A project API key, `mr_` and 43 characters. `full_access` or `sending_access`.',
  });
  registry.registerComponent('securitySchemes', 'consoleSession', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Service-Session',
    description: 'A console session token from /auth/login or /auth/signup.',
  });
  registry.registerComponent('securitySchemes', 'consoleProject', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Project-Id',
    description: 'The project (proj_…) a console session acts in.',
  });
  // Schemas with a `.meta({ id })` become components where routes use them; this one is listed
  // before any route references it, for clients generating types.
  registry.registerComponent('schemas', 'WebhookEventType', {
    type: 'string',
    enum: [...WEBHOOK_EVENT_TYPES],
    description: 'Event types a webhook endpoint can subscribe to.',
  });

  for (const route of routes) {
    const contentType = route.success.contentType ?? 'application/json';
    registry.registerPath({
      method: route.method,
      path: route.path,
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: [route.tag],
      security: securityFor(route.access),
      request: {
        ...(route.params ? { params: route.params } : {}),
        ...(route.query ? { query: route.query } : {}),
        ...(route.body ? { body: { required: true, content: { 'application/json': { schema: route.body } } } } : {}),
      },
      responses: {
        [String(route.success.status)]: {
          description: route.success.description,
          content: { [contentType]: { schema: route.success.schema } },
        },
        ...errorResponses(routeErrors(route)),
      },
    });
  }

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Mailroom API', version: '1.0.0', description: DESCRIPTION },
    servers: [{ url: serverUrl }],
  });
}
