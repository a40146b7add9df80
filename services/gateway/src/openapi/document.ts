import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { ERROR_STATUS, WEBHOOK_EVENT_TYPES, type ErrorName } from '@mailroom/core';
import { routeErrors, type Access, type AnyRoute } from '../http/route';
import { errorSchema } from '../schemas/common';
import { OPERATION_EXAMPLES } from './examples';
import { registerWebhookDeliveries, webhookPayloadDefinitions } from './webhook-deliveries';

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

const DESCRIPTION = `Mailroom sends email for your applications. Everything is organised in **projects**: each has its own API keys, members, sent emails and suppression list.

- **Sending**: \`POST /emails\` (or up to 100 at once with \`POST /emails/batch\`), with idempotency keys and scheduling; follow each recipient's delivery with \`GET /emails/{id}\`.
- **Authentication**: a project API key (\`Authorization: Bearer mr_…\`, \`full_access\` or \`sending_access\`) for applications, or a console session from \`POST /auth/login\` (\`X-Service-Session\` with \`X-Project-Id\`) for people.
- **Lists** take \`limit\` (1–100, default 20) and \`after\` (the last id seen) and answer \`{"object": "list", "data": [...], "hasMore": bool}\`, newest first.
- **Errors**: every failure answers \`{"name", "message", "statusCode"}\` with that HTTP status.
- Inputs also accept the snake_case spelling of each field (\`reply_to\`, \`scheduled_at\`), as Resend's SDKs send them.

To try a call here, choose **Authorize**, paste an API key, then **Try it out** on an operation.`;

/** Which security schemes a route accepts. */
function securityFor(access: Access): Record<string, string[]>[] {
  if (access.kind === 'public') return [];
  if (access.kind === 'user') return access.sessionOnly ? [{ consoleSession: [] }] : [{ apiToken: [] }, { consoleSession: [] }];
  const session = { consoleSession: [], consoleProject: [] };
  if (access.sessionOnly || access.ownerOnly) return [session];
  return [{ apiToken: [] }, session];
}

/** On every answer (DESIGN §4), also in the logs. */
const REQUEST_ID_HEADER = {
  'X-Request-Id': { description: "This request's id, also in the gateway's logs: quote it when reporting a problem.", required: true, schema: { type: 'string' as const } },
};

const integerHeader = (description: string) => ({ description, required: true, schema: { type: 'integer' as const, minimum: 0 } });

/** What a 429 says about the limit (DESIGN §4 "Errors"). */
const RATE_LIMIT_HEADERS = {
  ...REQUEST_ID_HEADER,
  'ratelimit-limit': integerHeader('Requests allowed per window.'),
  'ratelimit-remaining': integerHeader('Requests left in this window.'),
  'ratelimit-reset': integerHeader('Seconds until the window resets.'),
  'retry-after': integerHeader('Seconds to wait before retrying.'),
};

/** A 503 may say when to try again (a body the gateway cannot hold now: API_MAX_BUFFERED_BYTES). */
const UNAVAILABLE_HEADERS = {
  ...REQUEST_ID_HEADER,
  'retry-after': { ...integerHeader('Seconds to wait before retrying, when the gateway is holding as many request bodies as it may.'), required: false },
};

function errorResponses(names: readonly ErrorName[]) {
  const byStatus = new Map<number, ErrorName[]>();
  // Any request may be refused for its header section (431) or fail on the server's side.
  for (const name of [...names, 'headers_too_large', 'internal_server_error', 'service_unavailable'] as ErrorName[]) {
    const status = ERROR_STATUS[name];
    byStatus.set(status, [...new Set([...(byStatus.get(status) ?? []), name])]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, group]) => [
      String(status),
      {
        description: group.map((n) => `\`${n}\``).join(', '),
        headers: status === 429 ? RATE_LIMIT_HEADERS : status === 503 ? UNAVAILABLE_HEADERS : REQUEST_ID_HEADER,
        content: { 'application/json': { schema: errorSchema } },
      },
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

  registerWebhookDeliveries(registry);

  for (const route of routes) {
    const contentTypes = [route.success.contentType ?? 'application/json', ...(route.success.otherContentTypes ?? [])];
    const example = OPERATION_EXAMPLES[route.operationId];
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
        ...(route.body ? { body: { required: true, content: { 'application/json': { schema: route.body, example: example?.request } } } } : {}),
      },
      responses: {
        [String(route.success.status)]: {
          description: route.success.description,
          headers: REQUEST_ID_HEADER,
          content: Object.fromEntries(contentTypes.map((type) => [type, { schema: route.success.schema, example: example?.response }])),
        },
        ...errorResponses(routeErrors(route)),
      },
    });
  }

  const document = new OpenApiGeneratorV31([...registry.definitions, ...webhookPayloadDefinitions()]).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Mailroom API', version: '1.0.0', description: DESCRIPTION },
    servers: [{ url: serverUrl }],
  });
  addParameterExamples(document);
  return document;
}

interface Parameter {
  name: string;
  in: string;
  schema?: { type?: string };
  example?: string | number;
}

/** Path and query parameters take their example values from the operation's example. */
function addParameterExamples(document: OpenApiDocument): void {
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item as Record<string, { operationId?: string; parameters?: Parameter[] }>)) {
      const example = OPERATION_EXAMPLES[operation.operationId ?? ''];
      for (const parameter of operation.parameters ?? []) {
        const value = parameter.in === 'path' ? example?.params?.[parameter.name] : parameter.in === 'query' ? example?.query?.[parameter.name] : undefined;
        // Examples are kept as they appear in a URL; the document shows them in the parameter's type.
        if (value !== undefined) parameter.example = parameter.schema?.type === 'integer' ? Number(value) : value;
      }
    }
  }
}
