// The pure half of the outcome writer: given a recipient's current row (read under its lock),
// decides what one outcome does to it under DESIGN §4's transitions, and which events and
// suppression it brings.
import { canTransition, isTestAddress, newId, type DeliveryStatus, type EmailEventData, type ReportLinkData, type SmtpReplyData, type WebhookEventType } from '@mailroom/core';
import { eventData, type EmailEventSubject } from './event-data';
import type { EmailEventRow } from './insert-events';

/** What happened to one recipient at one attempt (or before any, when suppressed). */
export type RecipientOutcome =
  | { kind: 'delivered'; smtp: SmtpReplyData }
  | { kind: 'deferred'; smtp: SmtpReplyData | null; error: string; nextAttemptAt: Date }
  | { kind: 'failed'; smtp: SmtpReplyData | null; error: string }
  | { kind: 'bounced'; smtp: SmtpReplyData; bounceType: 'hard' | 'soft' | 'policy'; suppress: boolean; code?: string | null }
  | { kind: 'suppressed' };

/** What a report after the attempt says: a DSN (bounced or delayed), an ARF complaint, a simulated complaint. */
export type FeedbackOutcome =
  | { kind: 'bounced'; smtp: SmtpReplyData; bounceType: 'hard' | 'soft' | 'policy'; suppress: boolean }
  | { kind: 'deferred'; smtp: SmtpReplyData | null; error: string }
  | { kind: 'complained'; detail: string | null };

/** An attempt by the sender, which holds the email's lease. */
export interface RecipientAttempt {
  email: EmailEventSubject;
  recipient: { id: string; address: string; attempts: number };
  outcome: RecipientOutcome;
  /** When the attempt began; the `email.sent` event of a first attempt carries it. */
  startedAt: Date;
  /** When it ended. */
  endedAt: Date;
}

/** Feedback about a recipient, from any source, without the lease. */
export interface RecipientFeedback {
  email: EmailEventSubject;
  recipient: { id: string; address: string };
  outcome: FeedbackOutcome;
  /** When the report arrived; its event's time. */
  at: Date;
  /**
   * The report this outcome comes from, e.g. the inb_… id of the received DSN or ARF report.
   * An outcome whose (recipient, event type, source key) is already recorded is a replay of
   * that report: it changes nothing and appends nothing. Without it, only the status rules
   * below tell a replay apart (so a delay without a key is recorded each time).
   */
  sourceKey?: string;
  /** The received report it comes from (see `reportLink`), put in its event's data. */
  report?: ReportLinkData;
}

/** Anything the writer applies. */
export type OutcomeRecord = RecipientAttempt | RecipientFeedback;

/** A recipient's row as the writer reads and writes it; timestamps as ISO text. */
export interface RecipientState {
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastResponse: string | null;
  firstAttemptAt: string | null;
}

export interface Suppression {
  projectId: string;
  address: string;
  reason: 'bounce' | 'complaint';
  detail: string | null;
  sourceEmailId: string;
}

export interface Applied {
  state: RecipientState;
  events: EmailEventRow[];
  suppression: Suppression | null;
}

const STATUS_OF: Record<RecipientOutcome['kind'] | FeedbackOutcome['kind'], DeliveryStatus> = {
  delivered: 'delivered',
  deferred: 'delivery_delayed',
  failed: 'failed',
  bounced: 'bounced',
  suppressed: 'suppressed',
  complained: 'complained',
};

const EVENT_OF: Record<RecipientOutcome['kind'] | FeedbackOutcome['kind'], WebhookEventType> = {
  delivered: 'email.delivered',
  deferred: 'email.delivery_delayed',
  failed: 'email.failed',
  bounced: 'email.bounced',
  suppressed: 'email.suppressed',
  complained: 'email.complained',
};

export const isAttempt = (record: OutcomeRecord): record is RecipientAttempt => 'startedAt' in record;

/** The event type an outcome appends (beside `email.sent` for a first attempt). */
export const eventTypeOf = (record: OutcomeRecord): WebhookEventType => EVENT_OF[record.outcome.kind];

/**
 * Applies one outcome to a recipient's current state. The status moves only if DESIGN §4
 * allows it; the outcome's events are appended either way (a late delay after `delivered` is on
 * the timeline), except for a replay: feedback without a source key whose status the recipient
 * already has (a second sandbox complaint) changes nothing and appends nothing; reports by mail
 * carry their source key, which tells a replay apart. A delay is never a replay, since a
 * recipient may be delayed any number of times.
 */
export function applyOutcome(state: RecipientState, record: OutcomeRecord): Applied {
  const target = STATUS_OF[record.outcome.kind];
  const moves = canTransition(state.status, target);
  const base = { project_id: record.email.projectId, email_id: record.email.id, recipient: record.recipient.address };
  const event = (type: WebhookEventType, at: Date, extra: Partial<EmailEventData>): EmailEventRow => ({
    ...base,
    id: newId('event'),
    type,
    data: eventData(record.email, record.recipient.address, 'report' in record && record.report ? { ...extra, report: record.report } : extra),
    created_at: at.toISOString(),
    ...('sourceKey' in record && record.sourceKey !== undefined ? { source_key: record.sourceKey } : {}),
  });

  if (isAttempt(record)) {
    const { outcome } = record;
    const attempted = outcome.kind !== 'suppressed';
    const attempts = attempted ? state.attempts + 1 : state.attempts;
    const events: EmailEventRow[] = [];
    if (attempted && state.attempts === 0) events.push(event('email.sent', record.startedAt, { attempt: 1 }));
    events.push(event(EVENT_OF[outcome.kind], record.endedAt, outcomeData(outcome, attempts)));
    return {
      state: {
        status: moves ? target : state.status,
        attempts,
        nextAttemptAt: moves && outcome.kind === 'deferred' ? outcome.nextAttemptAt.toISOString() : moves ? null : state.nextAttemptAt,
        lastResponse: lastResponse(outcome),
        // Kept from the first attempt on; a suppressed recipient has none.
        firstAttemptAt: state.firstAttemptAt ?? (attempted ? record.startedAt.toISOString() : null),
      },
      events,
      suppression: moves ? suppressionOf(record) : null,
    };
  }

  // Without a source key, feedback the recipient's status already shows is taken for a replay
  // (a sandbox complaint, a DSN's bounce seen twice); a report with one is told apart by it, so
  // a different report about a bounced or complained recipient is on the timeline too (DESIGN §7).
  const keyed = 'sourceKey' in record && record.sourceKey !== undefined;
  if (!keyed && state.status === target && target !== 'delivery_delayed') return { state, events: [], suppression: null };
  const { outcome } = record;
  return {
    state: moves
      ? {
          ...state,
          status: target,
          nextAttemptAt: outcome.kind === 'deferred' ? state.nextAttemptAt : null,
          lastResponse: lastResponse(outcome) ?? state.lastResponse,
        }
      : state,
    // About the attempt that sent it: at least the first, also when the report overtook the
    // sender's commit of that attempt (a DSN within a second of the 250).
    events: [event(EVENT_OF[outcome.kind], record.at, outcomeData(outcome, Math.max(1, state.attempts)))],
    // A complaint or a hard bounce suppresses the address even if the status cannot show it.
    suppression: suppressionOf(record),
  };
}

function suppressionOf(record: OutcomeRecord): Suppression | null {
  const { outcome } = record;
  // Test addresses are never suppressed (DESIGN §4), so their outcomes can be replayed forever.
  if (isTestAddress(record.recipient.address)) return null;
  const base = { projectId: record.email.projectId, address: record.recipient.address.toLowerCase(), sourceEmailId: record.email.id };
  if (outcome.kind === 'bounced' && outcome.suppress) return { ...base, reason: 'bounce', detail: outcome.smtp.message.slice(0, 1000) };
  if (outcome.kind === 'complained') return { ...base, reason: 'complaint', detail: outcome.detail?.slice(0, 1000) ?? null };
  return null;
}

function lastResponse(outcome: RecipientOutcome | FeedbackOutcome): string | null {
  if ('smtp' in outcome && outcome.smtp) {
    const { code, enhanced_code, message } = outcome.smtp;
    // The reply as the server gave it, e.g. "451 4.7.1 Greylisted", for GET /emails/{id}.
    return [code, enhanced_code, message].filter((part) => part !== null && part !== '').join(' ').slice(0, 1000);
  }
  if ('error' in outcome) return outcome.error.slice(0, 1000);
  return null;
}

function outcomeData(outcome: RecipientOutcome | FeedbackOutcome, attempt: number): Partial<EmailEventData> {
  switch (outcome.kind) {
    case 'delivered':
      return { attempt, smtp: outcome.smtp };
    case 'deferred':
    case 'failed':
      return { attempt, smtp: outcome.smtp ?? { code: null, enhanced_code: null, message: outcome.error } };
    case 'bounced':
      // `code`: the status the bounce was judged by, read from the reply's text when it carried none ("550 No such user" is 5.1.1).
      return { attempt, smtp: outcome.smtp, bounce: { type: outcome.bounceType, code: ('code' in outcome ? outcome.code : null) ?? outcome.smtp.enhanced_code, message: outcome.smtp.message } };
    case 'complained':
    case 'suppressed':
      return {};
  }
}
