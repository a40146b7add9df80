import type { StoredEvent } from '../events';

/**
 * What one attempt needs: the (event, endpoint) pair, the endpoint's URL and secrets (still
 * encrypted), and the event itself. Secrets are decrypted only where the request is signed.
 */
export interface DeliveryTarget {
  eventId: string;
  webhookId: string;
  projectId: string;
  url: string;
  secretCiphertext: string;
  /** The secret before the last rotation while it is still signed with (24 h), else null. */
  previousSecretCiphertext: string | null;
  /** This attempt is `manual` (recover, replay, test) rather than part of the retry schedule. */
  manual: boolean;
  /** Scheduled attempts made before this one: its place in the retry schedule (manual ones do not count). */
  scheduledAttemptsBefore: number;
  event: StoredEvent;
}

/** Where and how an endpoint's deliveries are posted now: what a PATCH of its URL or a rotation of its secret changes. */
export type EndpointTarget = Pick<DeliveryTarget, 'webhookId' | 'url' | 'secretCiphertext' | 'previousSecretCiphertext'>;

/** A target row as the queries below return it. */
export interface DeliveryTargetRow {
  event_id: string;
  webhook_id: string;
  project_id: string;
  url: string;
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
  manual: boolean;
  scheduled_attempts: number;
  type: string;
  data: unknown;
  created_at: Date;
}

// The secret a rotation replaced, while it still signs (24 h), else null, for queries over webhooks w.
// previous_secret_expires_at holds the UTC wall time (rotateWebhookSecret writes it so): compared
// with now() as such, the 24 hours would shift by the session's offset from UTC.
export const PREVIOUS_SECRET_COLUMN = `CASE WHEN w.previous_secret_expires_at > (now() AT TIME ZONE 'UTC') THEN w.previous_secret_ciphertext END`;

/** The columns of a target, for `SELECT`s over webhook_deliveries d, webhooks w, email_events e. */
export const TARGET_COLUMNS = `d.event_id, d.webhook_id, d.project_id, w.url, w.secret_ciphertext,
  ${PREVIOUS_SECRET_COLUMN} AS previous_secret_ciphertext, d.manual, d.scheduled_attempts, e.type, e.data, e.created_at`;

export function toDeliveryTarget(row: DeliveryTargetRow): DeliveryTarget {
  return {
    eventId: row.event_id,
    webhookId: row.webhook_id,
    projectId: row.project_id,
    url: row.url,
    secretCiphertext: row.secret_ciphertext,
    previousSecretCiphertext: row.previous_secret_ciphertext,
    manual: row.manual,
    scheduledAttemptsBefore: row.scheduled_attempts,
    event: { id: row.event_id, type: row.type, createdAt: row.created_at, data: row.data },
  };
}
