import type { Queryable } from '../pool';
import type { EventSubject } from './append-events';
import type { StoredEvent } from './present-event';

/**
 * Where a follower of the outbox is: the (transaction, position) of the last event it has
 * seen. Both are decimal strings (xid8 and bigint exceed a JS number's safe range in principle).
 */
export interface OutboxCursor {
  xactId: string;
  position: string;
}

/** Before every event. */
export const OUTBOX_START: OutboxCursor = Object.freeze({ xactId: '0', position: '0' });

export interface OutboxEvent extends StoredEvent {
  projectId: string;
  subject: EventSubject;
  /** This event's own cursor: pass it back to read after it. */
  cursor: OutboxCursor;
}

export interface OutboxPage {
  events: OutboxEvent[];
  /** The cursor to read the next page from: the last event's, or the one given when none. */
  cursor: OutboxCursor;
}

interface OutboxRow {
  id: string;
  project_id: string;
  email_id: string | null;
  recipient: string | null;
  received_email_id: string | null;
  webhook_id: string | null;
  type: string;
  data: unknown;
  created_at: Date;
  xact_id: string;
  position: string;
}

/**
 * The rule of `readOutbox` as SQL, for followers that aggregate in the database instead of
 * reading rows (the stats rollup): events of `email_events` after the cursor in parameters
 * `$1` (xact id) and `$2` (position) whose transaction has ended. Order by
 * `email_events.xact_id, email_events.position`.
 */
export const READABLE_AFTER_CURSOR = `(email_events.xact_id, email_events.position) > ($1::xid8, $2::bigint)
              AND email_events.xact_id < pg_snapshot_xmin(pg_current_snapshot())`;

// The ORDER BY names the table's columns: a bare `position` would sort by the text alias of the
// select list ("10" before "9"), and a page would skip events below its last one.
/**
 * Reads up to `limit` events after `after`, in (transaction id, position) order, returning only
 * events whose transaction is older than every transaction still running
 * (`pg_snapshot_xmin(pg_current_snapshot())`). Such a transaction has ended, so no event can
 * later commit and sort before the ones returned: a follower that keeps the last cursor never
 * skips an event that committed late, and sees each once. A plain position cursor would: a
 * transaction holding position 1 open while another commits position 2 lets a reader pass 1
 * before it is visible. The price: while a transaction that began writing earlier stays open,
 * events of later ones wait behind it. See docs/event-outbox.md.
 */
export async function readOutbox(db: Queryable, after: OutboxCursor, limit: number): Promise<OutboxPage> {
  const { rows } = await db.query<OutboxRow>({
    name: 'mailroom-read-outbox',
    text: `SELECT id, project_id, email_id, recipient, received_email_id, webhook_id, type, data, created_at,
                  xact_id::text AS xact_id, position::text AS position
             FROM email_events
            WHERE ${READABLE_AFTER_CURSOR}
            ORDER BY email_events.xact_id, email_events.position
            LIMIT $3`,
    values: [after.xactId, after.position, limit],
  });
  const events = rows.map(toOutboxEvent);
  return { events, cursor: events[events.length - 1]?.cursor ?? after };
}

function toOutboxEvent(row: OutboxRow): OutboxEvent {
  return {
    id: row.id,
    projectId: row.project_id,
    subject: subjectOf(row),
    type: row.type,
    data: row.data,
    createdAt: row.created_at,
    cursor: { xactId: row.xact_id, position: row.position },
  };
}

function subjectOf(row: OutboxRow): EventSubject {
  if (row.email_id !== null) return { kind: 'email', emailId: row.email_id, recipient: row.recipient ?? '' };
  if (row.received_email_id !== null) return { kind: 'received_email', receivedEmailId: row.received_email_id };
  return { kind: 'webhook', webhookId: row.webhook_id ?? '' };
}
