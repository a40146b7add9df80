import { summarizeEmailStatus, type DeliveryStatus, type EmailEventData, type SmtpReplyData } from '@mailroom/core';
import type { Database } from '../client';
import { appendEmailEvents, eventData, type EmailEventSubject, type NewEmailEvent } from './event-outbox';

/** What happened to one recipient at one attempt (or before any, when suppressed). */
export type RecipientOutcome =
  | { kind: 'delivered'; smtp: SmtpReplyData }
  | { kind: 'deferred'; smtp: SmtpReplyData | null; error: string; nextAttemptAt: Date }
  | { kind: 'failed'; smtp: SmtpReplyData | null; error: string }
  | { kind: 'bounced'; smtp: SmtpReplyData; bounceType: 'hard' | 'soft' | 'policy'; suppress: boolean }
  | { kind: 'suppressed' };

export interface RecipientAttempt {
  email: EmailEventSubject;
  recipient: { id: string; address: string; attempts: number };
  outcome: RecipientOutcome;
  /** When the attempt began; the `email.sent` event of a first attempt carries it. */
  startedAt: Date;
}

const STATUS_OF: Record<RecipientOutcome['kind'], DeliveryStatus> = {
  delivered: 'delivered',
  deferred: 'delivery_delayed',
  failed: 'failed',
  bounced: 'bounced',
  suppressed: 'suppressed',
};

const EVENT_OF = {
  delivered: 'email.delivered',
  deferred: 'email.delivery_delayed',
  failed: 'email.failed',
  bounced: 'email.bounced',
  suppressed: 'email.suppressed',
} as const;

/**
 * Records one recipient's outcome in one transaction: the recipient's status and next attempt,
 * its events (`email.sent` on a first attempt, then the outcome), a suppression for 5.1.x
 * bounces, and the email's summarised status. The email row is locked so concurrent outcomes
 * for the same email summarise correctly.
 */
export async function recordRecipientOutcome(db: Database, attempt: RecipientAttempt): Promise<DeliveryStatus> {
  const { email, recipient, outcome } = attempt;
  const attemptNumber = outcome.kind === 'suppressed' ? recipient.attempts : recipient.attempts + 1;
  const now = new Date();
  const events: NewEmailEvent[] = [];
  const base = { projectId: email.projectId, emailId: email.id, recipient: recipient.address };
  if (outcome.kind !== 'suppressed' && recipient.attempts === 0) {
    events.push({ ...base, type: 'email.sent', data: eventData(email, recipient.address, { attempt: 1 }), createdAt: attempt.startedAt });
  }
  events.push({ ...base, type: EVENT_OF[outcome.kind], data: eventData(email, recipient.address, outcomeData(outcome, attemptNumber)), createdAt: now });

  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT 1 FROM emails WHERE id = ${email.id} FOR UPDATE`;
    await tx.emailRecipient.update({
      where: { id: recipient.id },
      data: {
        status: STATUS_OF[outcome.kind],
        attempts: attemptNumber,
        nextAttemptAt: outcome.kind === 'deferred' ? outcome.nextAttemptAt : null,
        lastResponse: 'smtp' in outcome && outcome.smtp ? `${outcome.smtp.code ?? ''} ${outcome.smtp.message}`.trim().slice(0, 1000) : 'error' in outcome ? outcome.error.slice(0, 1000) : null,
      },
    });
    if (outcome.kind === 'bounced' && outcome.suppress) {
      await tx.suppression.createMany({
        data: [{ projectId: email.projectId, address: recipient.address.toLowerCase(), reason: 'bounce', detail: outcome.smtp.message.slice(0, 1000), sourceEmailId: email.id }],
        skipDuplicates: true,
      });
    }
    await appendEmailEvents(tx, events);
    const statuses = await tx.emailRecipient.findMany({ where: { emailId: email.id }, select: { status: true } });
    const status = summarizeEmailStatus(statuses.map((r) => r.status));
    await tx.email.update({ where: { id: email.id }, data: { status } });
    return status;
  });
}

function outcomeData(outcome: RecipientOutcome, attempt: number): Partial<EmailEventData> {
  switch (outcome.kind) {
    case 'delivered':
      return { attempt, smtp: outcome.smtp };
    case 'deferred':
    case 'failed':
      return { attempt, smtp: outcome.smtp ?? { code: null, enhanced_code: null, message: outcome.error } };
    case 'bounced':
      return {
        attempt,
        smtp: outcome.smtp,
        bounce: { type: outcome.bounceType, code: outcome.smtp.enhanced_code, message: outcome.smtp.message },
      };
    case 'suppressed':
      return {};
  }
}
