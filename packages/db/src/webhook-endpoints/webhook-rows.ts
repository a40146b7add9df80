import { inTransaction, type Pool, type Queryable } from '../pool';
import { isForeignKeyViolation } from '../sql-errors';
import { sealNewWebhookSecret } from './webhook-secret';

export type WebhookDisabledReason = 'gone' | 'failing' | 'manual';

/** An endpoint as the API shows it: never its secrets (they are not even read). */
export interface WebhookRow {
  id: string;
  projectId: string;
  url: string;
  events: string[];
  routeId: string | null;
  description: string | null;
  enabled: boolean;
  disabledReason: WebhookDisabledReason | null;
  createdAt: Date;
}

export type NewWebhook = Pick<WebhookRow, 'id' | 'projectId' | 'url' | 'events' | 'routeId' | 'description' | 'enabled'>;

// Timestamps are UTC without a zone, as Prisma writes them; read them as such whatever the session's zone.
const COLUMNS = `id, project_id AS "projectId", url, events, route_id AS "routeId", description, enabled,
  disabled_reason AS "disabledReason", created_at AT TIME ZONE 'UTC' AS "createdAt"`;
const NOW = `(now() AT TIME ZONE 'UTC')`;
// When an endpoint starts receiving events: now, cut to the millisecond. The column holds
// milliseconds, and PostgreSQL rounds into it, up to 0.5 ms later than now; events' created_at
// is the producer's clock in whole milliseconds, cut down. Rounded, an event created in the
// half millisecond after the endpoint could compare as before it and never be delivered.
const SUBSCRIBED_NOW = `date_trunc('milliseconds', ${NOW})`;
// A route id is accepted only when it names a route of the same project; another project's
// route reads as unknown, exactly like a missing one.
const ROUTE_OF_PROJECT = (route: string, project: string) =>
  `(${route}::text IS NULL OR EXISTS (SELECT 1 FROM routes r WHERE r.id = ${route} AND r.project_id = ${project}))`;

/**
 * Stores a new endpoint with a new secret, encrypted with `encryptionKey` (the secret sub-key);
 * the secret itself is answered once and never stored in clear. `unknown_route` when `routeId`
 * is not a route of the project (or was deleted meanwhile: the foreign key decides).
 */
export async function insertWebhook(
  db: Queryable,
  webhook: NewWebhook,
  encryptionKey: Buffer,
): Promise<{ webhook: WebhookRow; secret: string } | 'unknown_route'> {
  const { secret, ciphertext } = sealNewWebhookSecret(encryptionKey);
  try {
    const { rows } = await db.query<WebhookRow>({
      text: `INSERT INTO webhooks (id, project_id, url, events, route_id, description, enabled, disabled_reason, secret_ciphertext,
                                   subscribed_at, created_at, updated_at)
             SELECT $1, $2, $3, $4, $5, $6, $7, CASE WHEN $7 THEN NULL ELSE 'manual'::"WebhookDisabledReason" END, $8, ${SUBSCRIBED_NOW}, ${NOW}, ${NOW}
              WHERE ${ROUTE_OF_PROJECT('$5', '$2')}
             RETURNING ${COLUMNS}`,
      values: [webhook.id, webhook.projectId, webhook.url, webhook.events, webhook.routeId, webhook.description, webhook.enabled, ciphertext],
    });
    const row = rows[0];
    return row ? { webhook: row, secret } : 'unknown_route';
  } catch (err) {
    if (isForeignKeyViolation(err)) return 'unknown_route';
    throw err;
  }
}

/**
 * One endpoint of the project, or null (another project's is null too). `forUpdate` locks the
 * row until the caller's transaction ends, so a change validated against it stays valid.
 */
export async function findWebhook(db: Queryable, projectId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<WebhookRow | null> {
  const { rows } = await db.query<WebhookRow>({
    text: `SELECT ${COLUMNS} FROM webhooks WHERE id = $1 AND project_id = $2${options.forUpdate ? ' FOR UPDATE' : ''}`,
    values: [id, projectId],
  });
  return rows[0] ?? null;
}

/** One page of the project's endpoints, newest first: ids below `before`, at most `limit`. */
export async function listWebhooks(db: Queryable, query: { projectId: string; before?: string | undefined; limit: number }): Promise<WebhookRow[]> {
  const { rows } = await db.query<WebhookRow>({
    text: `SELECT ${COLUMNS} FROM webhooks
            WHERE project_id = $1 AND ($2::text IS NULL OR id < $2)
            ORDER BY id DESC
            LIMIT $3`,
    values: [query.projectId, query.before ?? null, query.limit],
  });
  return rows;
}

/** Fields of a PATCH; undefined leaves a field, null clears `routeId` or `description`. */
export interface WebhookChanges {
  url?: string | undefined;
  events?: string[] | undefined;
  routeId?: string | null | undefined;
  description?: string | null | undefined;
  enabled?: boolean | undefined;
}

/**
 * Changes an endpoint of the project. Re-enabling a disabled endpoint subscribes it anew (it
 * receives events created from now on) and clears why it was disabled and how long it has been
 * failing; disabling an enabled one records `manual`. `not_found` when it is not the project's,
 * `unknown_route` when the new `routeId` is not a route of the project.
 */
export async function updateWebhook(
  db: Queryable,
  projectId: string,
  id: string,
  changes: WebhookChanges,
): Promise<{ webhook: WebhookRow } | 'not_found' | 'unknown_route'> {
  const setsRoute = changes.routeId !== undefined;
  try {
    const { rows } = await db.query<WebhookRow>({
      text: `UPDATE webhooks w
                SET url = COALESCE($3, w.url),
                    events = COALESCE($4, w.events),
                    route_id = CASE WHEN $5::boolean THEN $6 ELSE w.route_id END,
                    description = CASE WHEN $7::boolean THEN $8 ELSE w.description END,
                    enabled = COALESCE($9, w.enabled),
                    disabled_reason = CASE WHEN $9 IS TRUE THEN NULL
                                           WHEN $9 IS FALSE AND w.enabled THEN 'manual'::"WebhookDisabledReason"
                                           ELSE w.disabled_reason END,
                    subscribed_at = CASE WHEN $9 IS TRUE AND NOT w.enabled THEN ${SUBSCRIBED_NOW} ELSE w.subscribed_at END,
                    failing_since = CASE WHEN $9 IS TRUE AND NOT w.enabled THEN NULL ELSE w.failing_since END,
                    updated_at = ${NOW}
              WHERE w.id = $1 AND w.project_id = $2 AND (NOT $5::boolean OR ${ROUTE_OF_PROJECT('$6', '$2')})
          RETURNING ${COLUMNS}`,
      values: [
        id,
        projectId,
        changes.url ?? null,
        changes.events ?? null,
        setsRoute,
        changes.routeId ?? null,
        changes.description !== undefined,
        changes.description ?? null,
        changes.enabled ?? null,
      ],
    });
    const webhook = rows[0];
    if (webhook) return { webhook };
  } catch (err) {
    if (isForeignKeyViolation(err)) return 'unknown_route';
    throw err;
  }
  // Nothing updated: either the endpoint is not the project's, or the route was refused.
  return (await findWebhook(db, projectId, id)) ? 'unknown_route' : 'not_found';
}

/**
 * Deletes an endpoint of the project with its deliveries and attempt log; false when it is not
 * the project's. The endpoint is locked first, then its deliveries go, then the endpoint: the
 * order every writer of an endpoint's deliveries follows (the dispatcher's attempt recorder
 * locks the batch's endpoints before their deliveries). Locked first, no delivery can be added
 * meanwhile, so the endpoint's cascade finds none held by another transaction; a lone
 * `DELETE FROM webhooks`, or deleting the deliveries before the lock, deadlocked with a
 * recorder holding a delivery created in between.
 */
export async function deleteWebhook(pool: Pool, projectId: string, id: string): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    const { rowCount } = await client.query({ text: 'SELECT 1 FROM webhooks WHERE id = $1 AND project_id = $2 FOR UPDATE', values: [id, projectId] });
    if ((rowCount ?? 0) === 0) return false;
    await client.query({ text: 'DELETE FROM webhook_deliveries WHERE webhook_id = $1', values: [id] });
    await client.query({ text: 'DELETE FROM webhooks WHERE id = $1', values: [id] });
    return true;
  });
}

/** How long deliveries stay signed with the secret a rotation replaced (DESIGN §5). */
export const PREVIOUS_SECRET_GRACE_HOURS = 24;

/**
 * Gives an endpoint a new secret. The one it replaces keeps signing beside it for 24 hours, so
 * receivers can switch without losing a delivery; a secret replaced earlier than that is
 * dropped (only the last two are ever valid). Null when the endpoint is not the project's.
 */
export async function rotateWebhookSecret(
  db: Queryable,
  projectId: string,
  id: string,
  encryptionKey: Buffer,
): Promise<{ webhook: WebhookRow; secret: string } | null> {
  const { secret, ciphertext } = sealNewWebhookSecret(encryptionKey);
  const { rows } = await db.query<WebhookRow>({
    text: `UPDATE webhooks
              SET previous_secret_ciphertext = secret_ciphertext,
                  previous_secret_expires_at = ${NOW} + make_interval(hours => $4),
                  secret_ciphertext = $3,
                  updated_at = ${NOW}
            WHERE id = $1 AND project_id = $2
        RETURNING ${COLUMNS}`,
    values: [id, projectId, ciphertext, PREVIOUS_SECRET_GRACE_HOURS],
  });
  const webhook = rows[0];
  return webhook ? { webhook, secret } : null;
}

/** Ids of the project's endpoints scoped to a route, oldest first (what keeps the route from being deleted). */
export async function findWebhooksOfRoute(db: Queryable, projectId: string, routeId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>({
    text: 'SELECT id FROM webhooks WHERE route_id = $1 AND project_id = $2 ORDER BY id',
    values: [routeId, projectId],
  });
  return rows.map((r) => r.id);
}
