import type { GroupCommit, Logger, SendQueue, SmtpReplyData, Verp } from '@mailroom/core';
import type { OutcomeRecord, RecipientOutcome } from '@mailroom/db';
import type { Deliverer, DeliveryOutcome, SmtpReply } from './delivery';
import { MessageSkeleton, type PersonalizeHtml } from './message/build-skeleton';
import { MessageSigner } from './message/sign-dkim';
import { type DeferredAttempt, nextAttemptAt } from './retry-policy';
import type { DueRecipient, OutgoingEmail, SendStore } from './send-store';
import type { Signing, SigningDomains } from './signing-domains';
import { simulateOutcome } from './simulate-outcome';

export interface ProcessDeps {
  store: SendStore;
  deliverer: Deliverer;
  verp: Verp;
  sendQueue: SendQueue;
  /** Records outcomes by group commit, so concurrent recipients share transactions. */
  outcomes: GroupCommit<OutcomeRecord>;
  /** Limits the emails this process works on at once (SENDER_CONCURRENCY). */
  limit: <R>(task: () => Promise<R>) => Promise<R>;
  logger: Logger;
  smtpRetrySchedule: readonly number[];
  leaseSeconds: number;
  /**
   * The HTML part of each recipient of an email (open and click tracking); null for an email
   * whose recipients all get its own HTML, whose message is then compiled whole, once.
   */
  personalizeHtml: (email: OutgoingEmail) => PersonalizeHtml | null;
  /** Keys of verified domains: their mail is DKIM-signed and bounces to their return-path subdomain. Absent: nothing is signed. */
  signing?: SigningDomains;
}

// Recipients of one email attempted at once, over pooled connections.
const RECIPIENT_PARALLELISM = 5;

/**
 * Works on one send job: claims the due emails among `emailIds`, delivers each (its message
 * compiled once, only the HTML part built per recipient, one SMTP transaction per recipient
 * with a VERP return path; test addresses
 * simulated instead), records every outcome as it comes, and gives the emails back due at their next retry.
 */
export async function processSendJob(deps: ProcessDeps, emailIds: readonly string[]): Promise<void> {
  const claimed = await deps.store.claim(emailIds);
  if (claimed.length === 0) return;
  const renewal = setInterval(() => {
    deps.store.renew(claimed).catch((err: unknown) => deps.logger.warn({ err }, 'lease renewal failed'));
  }, (deps.leaseSeconds * 1000) / 3);
  try {
    const emails = await deps.store.load(claimed);
    // Every email finishes before any lease is given back, even if one of them fails.
    await settleAll(emails.map((email) => deps.limit(() => processEmail(deps, email))));
  } finally {
    clearInterval(renewal);
    await deps.sendQueue.enqueueDue(await deps.store.release(claimed));
  }
}

async function processEmail(deps: ProcessDeps, email: OutgoingEmail): Promise<void> {
  const now = new Date();
  if (email.suppressed.length > 0) {
    await deps.outcomes.submit(email.suppressed.map((recipient) => ({ email, recipient, outcome: { kind: 'suppressed' }, startedAt: now, endedAt: now })));
  }
  if (email.due.length === 0) return;
  let compiled: Promise<MessageSkeleton> | null = null;
  const personalize = deps.personalizeHtml(email);
  const varyHtml = personalize !== null;
  // Compiled once, on the first recipient that is really delivered: test addresses need no message.
  const skeleton = () =>
    (compiled ??= email.hasAttachments
      ? deps.store.attachments(email.id).then((a) => MessageSkeleton.build(email, a, { varyHtml }))
      : MessageSkeleton.build(email, [], { varyHtml }));
  // Looked up once per email, on the first recipient really delivered, like the message.
  let signingLookup: Promise<{ signing: Signing; signer: MessageSigner } | null> | null = null;
  const signing = () =>
    (signingLookup ??= (deps.signing?.forEmail(email) ?? Promise.resolve(null)).then((s) => (s ? { signing: s, signer: new MessageSigner(s.key) } : null)));
  const queue = [...email.due];
  const worker = async () => {
    for (let recipient = queue.shift(); recipient; recipient = queue.shift()) {
      const startedAt = new Date();
      const simulated = simulateOutcome(recipient.address, recipient.attempts);
      const delivery = simulated
        ? simulated.delivery
        : await deps.deliverer.deliver(await message(recipient));
      const endedAt = new Date();
      const attempt = { attemptsMade: recipient.attempts + 1, firstAttemptAt: recipient.firstAttemptAt ?? startedAt, now: endedAt };
      const outcome: RecipientOutcome = delivery.kind === 'suppressed' ? delivery : toRecipientOutcome(delivery, attempt, deps.smtpRetrySchedule);
      // Recorded before the next recipient: a crash re-sends at most the ones in flight.
      await deps.outcomes.submit([{ email, recipient, outcome, startedAt, endedAt }, ...(simulated?.complaint ? [complaint(email, recipient, endedAt)] : [])]);
    }
  };
  /** One recipient's message: signed when the From domain is verified, with a return path aligned with it. */
  const message = async (recipient: DueRecipient) => {
    const [built, signed] = await Promise.all([skeleton(), signing()]);
    const raw = await built.forRecipient(recipient, personalize ?? undefined);
    return {
      envelopeFrom: deps.verp.returnPath(recipient.id, signed?.signing.returnPathDomain),
      recipient: recipient.address,
      raw: signed ? await signed.signer.sign(raw) : raw,
    };
  };
  await settleAll(Array.from({ length: Math.min(RECIPIENT_PARALLELISM, email.due.length) }, worker));
}

/** The complaint a `complained@` test address files right after its delivery, as a feedback loop would. */
function complaint(email: OutgoingEmail, recipient: DueRecipient, deliveredAt: Date): OutcomeRecord {
  // A millisecond later, so the timeline keeps it after the delivery.
  return { email, recipient, outcome: { kind: 'complained', detail: 'Simulated complaint (sandbox)' }, at: new Date(deliveredAt.getTime() + 1) };
}

/** Waits for every task, then throws the first failure: nothing is left running behind a rejection. */
async function settleAll(tasks: Promise<unknown>[]): Promise<void> {
  const failure = (await Promise.allSettled(tasks)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) throw failure.reason;
}

/** Maps a delivery outcome onto the recipient's next state, applying the retry policy. */
function toRecipientOutcome(
  delivery: DeliveryOutcome,
  attempt: Omit<DeferredAttempt, 'retryAfterSeconds'>,
  schedule: readonly number[],
): RecipientOutcome {
  switch (delivery.kind) {
    case 'delivered':
      return { kind: 'delivered', smtp: replyData(delivery.smtp) };
    case 'bounced':
      return { kind: 'bounced', smtp: replyData(delivery.smtp), bounceType: delivery.bounceType, suppress: delivery.suppress };
    case 'deferred': {
      const smtp = delivery.smtp ? replyData(delivery.smtp) : null;
      const next = nextAttemptAt(schedule, { ...attempt, retryAfterSeconds: delivery.retryAfterSeconds });
      return next ? { kind: 'deferred', smtp, error: delivery.error, nextAttemptAt: next } : { kind: 'failed', smtp, error: delivery.error };
    }
  }
}

const replyData = (reply: SmtpReply): SmtpReplyData => ({ code: reply.code, enhanced_code: reply.enhancedCode, message: reply.message });
