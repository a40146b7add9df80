import type { Logger, SendQueue, SmtpReplyData } from '@mailroom/core';
import { recordRecipientOutcome, type Database, type RecipientOutcome } from '@mailroom/db';
import { buildMessage } from './build-message';
import type { Deliverer, DeliveryOutcome, SmtpReply } from './delivery';
import type { EmailClaims } from './email-claims';
import { nextAttemptAt } from './retry-policy';
import type { Verp } from './verp';

export interface ProcessEmailDeps {
  db: Database;
  claims: EmailClaims;
  deliverer: Deliverer;
  verp: Verp;
  sendQueue: SendQueue;
  logger: Logger;
  smtpRetrySchedule: readonly number[];
  leaseSeconds: number;
}

// Recipients of one email attempted at once, over pooled connections.
const RECIPIENT_PARALLELISM = 5;
const UNFINISHED = ['queued', 'sent', 'delivery_delayed'] as const;

/**
 * Works on one email: claims it, records `suppressed` for suppressed recipients, builds the
 * message once, delivers it to each due recipient in its own SMTP transaction (VERP return
 * path), records each outcome as it comes, and gives the email back due at its next retry.
 */
export async function processEmail(deps: ProcessEmailDeps, emailId: string): Promise<'done' | 'skipped'> {
  if (!(await deps.claims.claim(emailId))) return 'skipped';
  const renewal = setInterval(() => {
    deps.claims.renew(emailId).catch((err: unknown) => deps.logger.warn({ err, emailId }, 'lease renewal failed'));
  }, (deps.leaseSeconds * 1000) / 3);
  try {
    await attemptDueRecipients(deps, emailId);
  } finally {
    clearInterval(renewal);
    const next = await deps.claims.release(emailId);
    if (next) await deps.sendQueue.enqueue([{ emailId, dueAt: next }]);
  }
  return 'done';
}

async function attemptDueRecipients(deps: ProcessEmailDeps, emailId: string): Promise<void> {
  const now = new Date();
  const email = await deps.db.email.findUniqueOrThrow({
    where: { id: emailId },
    include: {
      recipients: { where: { status: { in: [...UNFINISHED] }, OR: [{ nextAttemptAt: null }, { nextAttemptAt: { lte: now } }] }, orderBy: { id: 'asc' } },
    },
  });
  if (email.recipients.length === 0) return;

  const suppressed = new Set(
    (
      await deps.db.suppression.findMany({
        where: { projectId: email.projectId, address: { in: email.recipients.map((r) => r.address.toLowerCase()) } },
        select: { address: true },
      })
    ).map((s) => s.address),
  );
  const toAttempt = [];
  for (const recipient of email.recipients) {
    if (suppressed.has(recipient.address.toLowerCase())) {
      await recordRecipientOutcome(deps.db, { email, recipient, outcome: { kind: 'suppressed' }, startedAt: now });
    } else {
      toAttempt.push(recipient);
    }
  }
  if (toAttempt.length === 0) return;

  const attachments = await deps.db.emailAttachment.findMany({ where: { emailId }, orderBy: { position: 'asc' } });
  const raw = await buildMessage(email, attachments);
  const queue = [...toAttempt];
  const worker = async () => {
    for (let recipient = queue.shift(); recipient; recipient = queue.shift()) {
      const startedAt = new Date();
      const delivery = await deps.deliverer.deliver({ envelopeFrom: deps.verp.returnPath(recipient.id), recipient: recipient.address, raw });
      const outcome = toRecipientOutcome(delivery, recipient.attempts + 1, deps.smtpRetrySchedule);
      await recordRecipientOutcome(deps.db, { email, recipient, outcome, startedAt });
      deps.logger.debug({ emailId, recipientId: recipient.id, outcome: outcome.kind }, 'recipient attempted');
    }
  };
  await Promise.all(Array.from({ length: Math.min(RECIPIENT_PARALLELISM, toAttempt.length) }, worker));
}

/** Maps a delivery outcome onto the recipient's next state, applying the retry schedule. */
export function toRecipientOutcome(delivery: DeliveryOutcome, attemptsMade: number, schedule: readonly number[]): RecipientOutcome {
  switch (delivery.kind) {
    case 'delivered':
      return { kind: 'delivered', smtp: replyData(delivery.smtp) };
    case 'bounced':
      return { kind: 'bounced', smtp: replyData(delivery.smtp), bounceType: delivery.bounceType, suppress: delivery.suppress };
    case 'deferred': {
      const smtp = delivery.smtp ? replyData(delivery.smtp) : null;
      const next = nextAttemptAt(attemptsMade, schedule, delivery.retryAfterSeconds);
      return next ? { kind: 'deferred', smtp, error: delivery.error, nextAttemptAt: next } : { kind: 'failed', smtp, error: delivery.error };
    }
  }
}

const replyData = (reply: SmtpReply): SmtpReplyData => ({ code: reply.code, enhanced_code: reply.enhancedCode, message: reply.message });
