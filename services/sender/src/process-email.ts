import { type GroupCommit, isUnavailableError, type Logger, type SendQueue, type SmtpReplyData, type Verp } from '@mailroom/core';
import { isAttempt, type OutcomeRecord, type RecipientOutcome } from '@mailroom/db';
import type { Deliverer, DeliveryOutcome, DeliveryRequest, SmtpReply } from './delivery';
import { MessageSkeleton, type PersonalizeHtml } from './message/build-skeleton';
import { MessageSigner } from './message/sign-dkim';
import { type DeferredAttempt, nextAttemptAt } from './retry-policy';
import { RetriesWithinJob } from './retries-within-job';
import type { DueRecipient, OutgoingEmail, RecordedAttempt, SendStore } from './send-store';
import type { Signing, SigningDomains } from './signing-domains';
import { simulateOutcome } from './simulate-outcome';

export interface ProcessDeps {
  store: SendStore;
  deliverer: Deliverer;
  verp: Verp;
  sendQueue: SendQueue;
  /** Records outcomes by group commit, so concurrent recipients share transactions. */
  outcomes: GroupCommit<OutcomeRecord>;
  /** Limits the emails this process delivers at once (SENDER_CONCURRENCY). */
  limit: <R>(task: () => Promise<R>) => Promise<R>;
  /**
   * The most emails of one job this process keeps (about two rounds of its slots); the rest go
   * back to the queue as a new job, so a large batch is spread over every sender.
   */
  emailsPerJob: number;
  logger: Logger;
  smtpRetrySchedule: readonly number[];
  leaseSeconds: number;
  /**
   * The emails this process's jobs have claimed and not yet released. A job for one of them (the
   * reconciler's, once its lease has lapsed while PostgreSQL was away) leaves it alone: its
   * outcome may still be waiting to be committed here, and claiming it again would send it twice.
   */
  held: Set<string>;
  /** True once the process is stopping: an outcome commit then stops waiting for PostgreSQL after the lease's time. */
  stopping: () => boolean;
  /**
   * The HTML part of each recipient of an email (open and click tracking); null for an email
   * whose recipients all get its own HTML, whose message is then compiled whole, once.
   */
  personalizeHtml: (email: OutgoingEmail) => PersonalizeHtml | null;
  /** Keys of verified domains, looked up once per job: their mail is DKIM-signed and bounces to their return-path subdomain. Absent: nothing is signed. */
  signing?: SigningDomains;
  /**
   * REQUIRE_VERIFIED_DOMAINS: mail whose From domain is not verified in its project when it is
   * due (the domain failed or was deleted after the send was accepted, perhaps verified by
   * another project since) is not sent but deferred, so it goes out only if the domain is
   * verified again in time, and otherwise fails at the end of the retry schedule.
   */
  requireVerifiedDomains?: boolean;
}

// Why a recipient of such mail is deferred without a delivery attempt.
const DOMAIN_NOT_VERIFIED_NOW =
  'Not sent: the From domain is not verified in this project now (REQUIRE_VERIFIED_DOMAINS); tried again on the retry schedule in case it is verified again.';

// Recipients of one email attempted at once, over pooled connections.
const RECIPIENT_PARALLELISM = 5;
// Between tries of an outcome's commit while PostgreSQL is unreachable, in ms: short, as the
// first try after its return is what keeps another process from claiming the email meanwhile.
const OUTCOME_RETRY_MS = 250;

/**
 * Works on one send job: claims the due emails among `emailIds`, delivers each (its message
 * compiled once, only the HTML part built per recipient, one SMTP transaction per recipient
 * with a VERP return path; test addresses
 * simulated instead), records every outcome as it comes, retries a deferred recipient within
 * the job when it falls due while its email's other recipients are still in flight
 * (`RetriesWithinJob`), and gives the emails back due at their next retry.
 */
export async function processSendJob(deps: ProcessDeps, emailIds: readonly string[]): Promise<void> {
  if (emailIds.length > deps.emailsPerJob) {
    // Handed back before claiming: whoever has free slots first takes them (this process too).
    await deps.sendQueue.enqueueNow(emailIds.slice(deps.emailsPerJob));
    emailIds = emailIds.slice(0, deps.emailsPerJob);
  }
  const claimed = await deps.store.claim(emailIds.filter((id) => !deps.held.has(id)));
  if (claimed.length === 0) return;
  for (const id of claimed) deps.held.add(id);
  const renewal = setInterval(() => {
    deps.store.renew(claimed).catch((err: unknown) => deps.logger.warn({ err }, 'lease renewal failed'));
  }, (deps.leaseSeconds * 1000) / 3);
  try {
    const emails = await deps.store.load(claimed);
    const signings = (await deps.signing?.forEmails(emails)) ?? new Map<string, Signing>();
    // Every email finishes before any lease is given back, even if one of them fails.
    await settleAll(emails.map((email) => processEmail(deps, email, signings.get(email.id) ?? null)));
  } finally {
    clearInterval(renewal);
    try {
      await deps.sendQueue.enqueueDue(await deps.store.release(claimed));
    } finally {
      for (const id of claimed) deps.held.delete(id);
    }
  }
}

/**
 * Delivers an email in one of the process's SENDER_CONCURRENCY slots, and waits for its
 * outcomes to be committed. The slot is freed when its last SMTP transaction ends, not when
 * that outcome is committed: the next email's transactions overlap the commit (and the group
 * commit gathers more outcomes per transaction), instead of the slot idling through it.
 */
async function processEmail(deps: ProcessDeps, email: OutgoingEmail, signing: Signing | null): Promise<void> {
  const recordings: Promise<void>[] = [];
  const record = (records: OutcomeRecord[]): Promise<void> => {
    const recorded = commitOutcomes(deps, records);
    // Awaited below, after the slot; handled now, so a failed commit is never an unhandled rejection meanwhile.
    recorded.catch(() => {});
    recordings.push(recorded);
    return recorded;
  };
  try {
    await deps.limit(() => deliverEmail(deps, email, signing, record));
  } finally {
    await settleAll(recordings);
  }
}

async function deliverEmail(deps: ProcessDeps, email: OutgoingEmail, signing: Signing | null, record: (records: OutcomeRecord[]) => Promise<void>): Promise<void> {
  const now = new Date();
  if (email.suppressed.length > 0) {
    record(email.suppressed.map((recipient) => ({ email, recipient, outcome: { kind: 'suppressed' }, startedAt: now, endedAt: now })));
  }
  if (email.due.length === 0) return;
  let compiled: Promise<MessageSkeleton> | null = null;
  const personalize = deps.personalizeHtml(email);
  const varyHtml = personalize !== null;
  // Compiled once, on the first recipient that is really delivered: test addresses need no message.
  const skeleton = () =>
    (compiled ??= email.hasAttachments
      ? deps.store.attachments(email.id).then((a) => unbuildableOnFailure(MessageSkeleton.build(email, a, { varyHtml })))
      : unbuildableOnFailure(MessageSkeleton.build(email, [], { varyHtml })));
  const signer = signing ? new MessageSigner(signing.key) : null;
  const queue = [...email.due];
  const later = new RetriesWithinJob<{ recipientId: string; recorded: Promise<void> }>();
  /** A deferred recipient again, due now, as its row says after the deferral's commit: null when it is no longer due. */
  const dueAgain = async (retry: { recipientId: string; recorded: Promise<void> }): Promise<DueRecipient | null> => {
    await retry.recorded;
    const [fresh] = await deps.store.load([email.id]);
    const suppressed = fresh?.suppressed.find((r) => r.id === retry.recipientId);
    if (suppressed) {
      const at = new Date();
      await record([{ email, recipient: suppressed, outcome: { kind: 'suppressed' }, startedAt: at, endedAt: at }]);
    }
    return fresh?.due.find((r) => r.id === retry.recipientId) ?? null;
  };
  const worker = async () => {
    let recorded: Promise<void> = Promise.resolve();
    for (;;) {
      // A stopping process starts no new transaction: what is left stays due and goes back to
      // the queue with the email, so the stop waits only for the transactions in flight.
      if (deps.stopping()) return;
      let recipient = queue.shift();
      if (!recipient) {
        const retry = await later.next();
        if (!retry) return;
        recipient = (await dueAgain(retry)) ?? undefined;
        if (!recipient) continue;
      }
      // The previous outcome is committed before the next attempt: a crash re-sends at most the ones in flight.
      await recorded;
      later.started();
      try {
        const startedAt = new Date();
        const simulated = simulateOutcome(recipient.address, recipient.attempts);
        const delivery = simulated ? simulated.delivery : await deliverTo(recipient);
        const endedAt = new Date();
        const attempt = { attemptsMade: recipient.attempts + 1, firstAttemptAt: recipient.firstAttemptAt ?? startedAt, now: endedAt };
        const outcome: RecipientOutcome = delivery.kind === 'suppressed' ? delivery : toRecipientOutcome(delivery, attempt, deps.smtpRetrySchedule);
        recorded = record([{ email, recipient, outcome, startedAt, endedAt }, ...(simulated?.complaint ? [complaint(email, recipient, endedAt)] : [])]);
        if (outcome.kind === 'deferred') later.defer({ recipientId: recipient.id, recorded }, outcome.nextAttemptAt);
      } finally {
        later.finished();
      }
    }
  };
  /**
   * One recipient's message: signed when the From domain is verified (by the deliverer, last, so
   * that a 7-bit copy for a next hop without 8BITMIME is signed as it is sent), with a return path
   * aligned with it.
   */
  const message = async (recipient: DueRecipient): Promise<DeliveryRequest> => ({
    envelopeFrom: deps.verp.returnPath(recipient.id, signing?.returnPathDomain),
    recipient: recipient.address,
    raw: await unbuildableOnFailure((await skeleton()).forRecipient(recipient, personalize ?? undefined)),
    sign: signer ? (raw) => signer.sign(raw) : undefined,
  });
  // A message that cannot be built never will be: its recipients bounce, rather than the job
  // failing and being tried again for ever. Anything else (PostgreSQL, a lease) fails the job.
  const deliverTo = async (recipient: DueRecipient): Promise<DeliveryOutcome> => {
    if (deps.requireVerifiedDomains && signing === null) return { kind: 'deferred', smtp: null, error: DOMAIN_NOT_VERIFIED_NOW, retryAfterSeconds: null };
    let request: DeliveryRequest;
    try {
      request = await message(recipient);
    } catch (err) {
      if (!(err instanceof UnbuildableMessageError)) throw err;
      deps.logger.error({ err: err.cause, emailId: email.id }, 'message could not be built; its recipients bounce');
      return { kind: 'bounced', smtp: { code: null, enhancedCode: '5.6.0', message: err.message }, bounceType: 'hard', suppress: false, code: '5.6.0' };
    }
    return deps.deliverer.deliver(request);
  };
  await settleAll(Array.from({ length: Math.min(RECIPIENT_PARALLELISM, email.due.length) }, worker));
}

/**
 * Commits outcomes, trying again while PostgreSQL is unreachable, for as long as it takes: an
 * outcome lost to a database outage would have its recipient sent again. The email stays held
 * by this process meanwhile (`ProcessDeps.held`), so no job of this process claims it again, and
 * as soon as PostgreSQL answers, its lease (lapsed in a long outage) is renewed and the commit
 * tried: another process could claim it only in the moment between PostgreSQL's return and that
 * renewal (at-least-once across processes). A process that is stopping gives up once the
 * lease's time has passed since the first failure. A commit whose reply was lost may have gone
 * through: before each new try, what the recipients' rows show as recorded is dropped, so
 * nothing is recorded twice.
 */
async function commitOutcomes(deps: ProcessDeps, records: OutcomeRecord[]): Promise<void> {
  let giveUpAt: number | null = null;
  const givingUp = () => deps.stopping() && Date.now() >= (giveUpAt as number);
  let pending = records;
  for (;;) {
    try {
      await deps.outcomes.submit(pending);
      return;
    } catch (err) {
      if (!isUnavailableError(err)) throw err;
      giveUpAt ??= Date.now() + deps.leaseSeconds * 1000;
      let recorded: Set<string> | null = null;
      while (recorded === null) {
        if (givingUp()) throw err;
        await new Promise((resolve) => setTimeout(resolve, OUTCOME_RETRY_MS));
        recorded = await deps.store.recordedSince(pending.flatMap(attemptOf)).catch(() => null);
      }
      pending = pending.filter((r) => !recorded.has(r.recipient.id));
      if (pending.length === 0) return;
      await deps.store.renew([...new Set(pending.map((r) => r.email.id))]).catch(() => {});
    }
  }
}

/** The sender's own attempt in a record (feedback is not one), as `recordedSince` checks it. */
function attemptOf(record: OutcomeRecord): RecordedAttempt[] {
  if (!isAttempt(record)) return [];
  return [{ id: record.recipient.id, attempts: record.recipient.attempts, suppressed: record.outcome.kind === 'suppressed' }];
}

/** The complaint a `complained@` test address files right after its delivery, as a feedback loop would. */
function complaint(email: OutgoingEmail, recipient: DueRecipient, deliveredAt: Date): OutcomeRecord {
  // A millisecond later, so the timeline keeps it after the delivery.
  return { email, recipient, outcome: { kind: 'complained', detail: 'Simulated complaint (sandbox)' }, at: new Date(deliveredAt.getTime() + 1) };
}

/** Building or personalizing the message failed: the same email would fail the same way every time. */
class UnbuildableMessageError extends Error {
  override readonly name = 'UnbuildableMessageError';
  constructor(cause: unknown) {
    super(`Mailroom could not build the message: ${cause instanceof Error ? cause.message : String(cause)}`.slice(0, 500), { cause });
  }
}

const unbuildableOnFailure = <T>(building: Promise<T>): Promise<T> =>
  building.catch((err: unknown) => {
    throw new UnbuildableMessageError(err);
  });

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
      return { kind: 'bounced', smtp: replyData(delivery.smtp), bounceType: delivery.bounceType, suppress: delivery.suppress, code: delivery.code ?? delivery.smtp.enhancedCode };
    case 'deferred': {
      const smtp = delivery.smtp ? replyData(delivery.smtp) : null;
      const next = nextAttemptAt(schedule, { ...attempt, retryAfterSeconds: delivery.retryAfterSeconds });
      return next ? { kind: 'deferred', smtp, error: delivery.error, nextAttemptAt: next } : { kind: 'failed', smtp, error: delivery.error };
    }
  }
}

const replyData = (reply: SmtpReply): SmtpReplyData => ({ code: reply.code, enhanced_code: reply.enhancedCode, message: reply.message });
