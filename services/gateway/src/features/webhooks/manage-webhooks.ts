import { isId, MailroomError, newId, notFound, ROUTE_SCOPED_EVENT_TYPES } from '@mailroom/core';
import {
  deleteWebhook,
  findWebhook,
  inTransaction,
  insertWebhook,
  listWebhooks,
  rotateWebhookSecret,
  updateWebhook,
  type Pool,
  type Queryable,
  type WebhookChanges,
  type WebhookRow,
} from '@mailroom/db';
import type { ListQuery } from '../../http/pagination';

/** What managing endpoints needs: the database, the secret sub-key, and the URL host check. */
export interface WebhookEndpointDeps {
  pool: Pool;
  /** `deriveKey(SECRET_KEY, 'encryption')`: secrets are stored encrypted with it. */
  encryptionKey: Buffer;
  /** Refuses (422) a URL whose host is private, unless ALLOW_PRIVATE_NETWORKS. */
  checkUrlHost(url: string): Promise<void>;
}

export interface WebhookInput {
  url: string;
  events: string[];
  routeId?: string | null | undefined;
  description?: string | null | undefined;
  enabled: boolean;
}

const invalid = (message: string) => new MailroomError('validation_error', message);
// The same words for a malformed id, a missing route and another project's: nothing is revealed.
const unknownRoute = (routeId: string) => invalid(`\`routeId\`: unknown route ${JSON.stringify(routeId)}; it must be a route of this project.`);

/** An endpoint scoped to a route receives only events about mail that arrived through it (DESIGN §5). */
function checkRouteScope(routeId: string | null | undefined, events: readonly string[]): void {
  if (!routeId) return;
  if (!isId('route', routeId)) throw unknownRoute(routeId);
  const outside = events.filter((type) => !(ROUTE_SCOPED_EVENT_TYPES as readonly string[]).includes(type));
  if (outside.length > 0) {
    throw invalid(
      `\`events\`: an endpoint scoped to a route (\`routeId\`) receives only events about mail that arrived through it (${ROUTE_SCOPED_EVENT_TYPES.join(', ')}); ${outside.join(', ')} cannot be subscribed to with it.`,
    );
  }
}

/** Creates an endpoint and its secret, which is answered this once. */
export async function createWebhook(deps: WebhookEndpointDeps, projectId: string, input: WebhookInput): Promise<{ webhook: WebhookRow; secret: string }> {
  checkRouteScope(input.routeId, input.events);
  await deps.checkUrlHost(input.url);
  const result = await insertWebhook(
    deps.pool,
    {
      id: newId('webhook'),
      projectId,
      url: input.url,
      events: input.events,
      routeId: input.routeId ?? null,
      description: input.description || null,
      enabled: input.enabled,
    },
    deps.encryptionKey,
  );
  if (result === 'unknown_route') throw unknownRoute(input.routeId ?? '');
  return result;
}

/** One endpoint of the project; another project's is 404 like a missing one. */
export async function getWebhook(db: Queryable, projectId: string, id: string): Promise<WebhookRow> {
  const webhook = isId('webhook', id) ? await findWebhook(db, projectId, id) : null;
  if (!webhook) throw notFound('webhook');
  return webhook;
}

/** `limit + 1` endpoints of the project after the cursor, newest first (see `toPage`). */
export function listProjectWebhooks(db: Queryable, projectId: string, query: ListQuery): Promise<WebhookRow[]> {
  return listWebhooks(db, { projectId, before: query.after, limit: query.limit + 1 });
}

/**
 * Changes an endpoint. The route rule is checked against the endpoint as it will be (a PATCH of
 * `events` alone must still fit its route), with the row locked so no other change slips between.
 */
export async function changeWebhook(deps: WebhookEndpointDeps, projectId: string, id: string, changes: WebhookChanges): Promise<WebhookRow> {
  if (!isId('webhook', id)) throw notFound('webhook');
  if (changes.url !== undefined) await deps.checkUrlHost(changes.url);
  const normalized: WebhookChanges = { ...changes, description: changes.description === '' ? null : changes.description };
  const result = await inTransaction(deps.pool, async (client) => {
    const current = await findWebhook(client, projectId, id, { forUpdate: true });
    if (!current) return 'not_found' as const;
    checkRouteScope(normalized.routeId === undefined ? current.routeId : normalized.routeId, normalized.events ?? current.events);
    return updateWebhook(client, projectId, id, normalized);
  });
  if (result === 'not_found') throw notFound('webhook');
  if (result === 'unknown_route') throw unknownRoute(changes.routeId ?? '');
  return result.webhook;
}

export async function removeWebhook(pool: Pool, projectId: string, id: string): Promise<void> {
  if (!isId('webhook', id) || !(await deleteWebhook(pool, projectId, id))) throw notFound('webhook');
}

/** A new secret for the endpoint, answered this once; the previous one keeps signing for 24 hours. */
export async function rotateSecret(deps: WebhookEndpointDeps, projectId: string, id: string): Promise<{ webhook: WebhookRow; secret: string }> {
  const rotated = isId('webhook', id) ? await rotateWebhookSecret(deps.pool, projectId, id, deps.encryptionKey) : null;
  if (!rotated) throw notFound('webhook');
  return rotated;
}
