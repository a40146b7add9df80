import type { EventQueue, Logger } from '@mailroom/core';
import {
  loadPendingReceivedEmails,
  type PendingReceivedEmail,
  type Pool,
  type ReceivedContent,
  recordProcessingFailure,
  storeProcessedEmail,
  type StoreResult,
} from '@mailroom/db';
import { applyFeedback, type FeedbackOptions } from './apply-feedback';
import { authenticateMessage } from './authenticate';
import { EMPTY_CONTENT, type ParsedMessage, parseMessage } from './parse-message';

/** Failed tries after which a message is stored with what is known instead of retried again. */
export const MAX_PROCESSING_ATTEMPTS = 5;
// Messages of one job worked on at once (mostly waiting on DNS). Each may be up to
// INBOUND_MAX_MESSAGE_BYTES, held about three times over while parsed, and INBOUND_CONCURRENCY
// jobs run at once: keep this small.
const PER_JOB_CONCURRENCY = 4;

export interface ProcessingDeps {
  pool: Pool;
  eventQueue: Pick<EventQueue, 'notify'>;
  logger: Logger;
  /** Our host name, for mailauth's Authentication-Results. */
  mta: string;
  dnsServers?: string[];
  dnsTimeoutMs?: number;
  dnsBudgetMs?: number;
  maxAttempts?: number;
  /** Turns feedback (bounces, complaints) into outcomes on sent email; without it feedback is only stored. */
  feedback?: FeedbackOptions;
}

export interface ProcessingSummary {
  /** Stored by this call (events appended for route mail). */
  stored: string[];
  /** Failed this time; left for a retry or the reconciler. */
  failed: string[];
}

/** Raised for a job some of whose messages failed, so BullMQ retries it (processed ones are skipped). */
export class ProcessingFailedError extends Error {
  override readonly name = 'ProcessingFailedError';
}

/**
 * Parses, authenticates and stores each still-unprocessed received email among `ids`, with its
 * `email.received` events, then wakes the event dispatcher. A message whose processing throws
 * has the failure counted; at the last allowed attempt it is stored with what is known.
 */
export async function processReceivedEmails(deps: ProcessingDeps, ids: readonly string[]): Promise<ProcessingSummary> {
  const summary: ProcessingSummary = { stored: [], failed: [] };
  // A slice at a time: raw messages (up to INBOUND_MAX_MESSAGE_BYTES each) are loaded only for
  // the few being worked on, whatever the size of the job.
  for (let start = 0; start < ids.length; start += PER_JOB_CONCURRENCY) {
    const pending = await loadPendingReceivedEmails(deps.pool, ids.slice(start, start + PER_JOB_CONCURRENCY));
    let appended = false;
    await Promise.all(
      pending.map(async (email) => {
        try {
          const result = await processOne(deps, email);
          if (result.stored) summary.stored.push(email.id);
          appended ||= result.appended;
        } catch (err) {
          summary.failed.push(email.id);
          deps.logger.error({ err, receivedEmailId: email.id }, 'processing a received email failed');
        }
      }),
    );
    // After the commits, so the dispatcher finds the events; a lost wake-up is caught by the outbox reconciler.
    if (appended) {
      await deps.eventQueue.notify().catch((err: unknown) => deps.logger.warn({ err }, 'could not notify the events queue; the outbox reconciler will'));
    }
  }
  return summary;
}

interface OneResult {
  stored: boolean;
  /** Events were appended (email.received, or a feedback outcome). */
  appended: boolean;
}

const fromStore = (result: StoreResult, feedbackEvents = 0): OneResult => ({ stored: result.stored, appended: result.eventIds.length + feedbackEvents > 0 });

async function processOne(deps: ProcessingDeps, email: PendingReceivedEmail): Promise<OneResult> {
  const maxAttempts = deps.maxAttempts ?? MAX_PROCESSING_ATTEMPTS;
  if (email.processingAttempts >= maxAttempts) return fromStore(await giveUp(deps, email, null, 'gave up after repeated failures'));
  let parsed: ParsedMessage | null = null;
  try {
    parsed = await parseMessage(email.raw);
    const authentication = await authenticateMessage(email.raw, {
      remoteAddress: email.remoteAddress,
      helo: email.helo,
      mailFrom: email.mailFrom,
      mta: deps.mta,
      dnsServers: deps.dnsServers,
      dnsTimeoutMs: deps.dnsTimeoutMs,
      dnsBudgetMs: deps.dnsBudgetMs,
    });
    // The outcome first (idempotent by the report's Message-ID or id), then the row marked
    // processed: a crash in between applies the report again, which records nothing more.
    const feedbackEvents =
      email.kind === 'feedback' && deps.feedback
        ? await applyFeedback({ pool: deps.pool, logger: deps.logger, ...deps.feedback }, { ...email, messageId: parsed.messageId })
        : 0;
    return fromStore(await storeProcessedEmail(deps.pool, { email, content: parsed, authentication, processingError: parsed.parseError }), feedbackEvents);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    // When the database is down this throws too, and the message waits for the next try.
    const attempts = await recordProcessingFailure(deps.pool, email.id, reason);
    if (attempts !== null && attempts >= maxAttempts) return fromStore(await giveUp(deps, email, parsed, reason));
    throw err;
  }
}

/**
 * Stores a message that keeps failing with the little that is safe to keep (sender, subject,
 * ids), no verdicts, and its error, so it is processed and its email.received still emitted.
 */
function giveUp(deps: ProcessingDeps, email: PendingReceivedEmail, parsed: ParsedMessage | null, reason: string): Promise<StoreResult> {
  deps.logger.warn({ receivedEmailId: email.id, reason }, 'storing a received email that keeps failing without its parsed content');
  const content: ReceivedContent = {
    ...EMPTY_CONTENT,
    from: parsed?.from ?? null,
    subject: parsed?.subject ?? null,
    messageId: parsed?.messageId ?? null,
  };
  return storeProcessedEmail(deps.pool, { email, content, authentication: null, processingError: reason });
}
