import { type Logger, MailroomError, notFound, type WebhookQueue } from '@mailroom/core';
import { listWebhookAttempts, type Pool, type WebhookAttempt } from '@mailroom/db';
import { requestRecovery, type WebhookDeliverer } from '@mailroom/webhooks';
import type { ListQuery } from '../../http/pagination';
import { getWebhook } from './manage-webhooks';

/** What the delivery endpoints (test, replay, recover, the log) need. */
export interface WebhookDeliveryDeps {
  pool: Pool;
  deliverer: WebhookDeliverer;
  /** Wakes the dispatcher after a recover; the reconciler's next tick finds the work anyway. */
  queue: Pick<WebhookQueue, 'wakeDispatcher' | 'close'>;
  logger: Logger;
}

/** How far back `recover` reaches (DESIGN §4): 14 days. */
export const RECOVER_MAX_DAYS = 14;
const DAY_MS = 86_400_000;

/** A signed `webhook.test` event, delivered now; the attempt, success or not. */
export async function sendTestEvent(deps: WebhookDeliveryDeps, projectId: string, webhookId: string): Promise<WebhookAttempt> {
  await getWebhook(deps.pool, projectId, webhookId);
  return deps.deliverer.sendTest(projectId, webhookId);
}

/** DESIGN §5 replay: 404 for another project's endpoint, and when there is nothing to replay. */
export async function replayLatestFailure(deps: WebhookDeliveryDeps, projectId: string, webhookId: string): Promise<WebhookAttempt> {
  await getWebhook(deps.pool, projectId, webhookId);
  const attempt = await deps.deliverer.replay(projectId, webhookId);
  if (!attempt) {
    throw new MailroomError('not_found', 'Nothing to replay: no failed attempt of this endpoint whose event has not been delivered to it since.');
  }
  return attempt;
}

/** `limit + 1` attempts of one of the project's endpoints, newest first, filtered. */
export async function listAttempts(
  pool: Pool,
  projectId: string,
  webhookId: string,
  query: ListQuery & { eventId?: string | undefined; success?: boolean | undefined },
): Promise<WebhookAttempt[]> {
  await getWebhook(pool, projectId, webhookId);
  return listWebhookAttempts(pool, { projectId, webhookId, eventId: query.eventId, success: query.success, before: query.after, limit: query.limit + 1 });
}

/**
 * Marks every event of the endpoint whose delivery ended failed since `since` for re-delivery
 * as a manual attempt, durably, then wakes the dispatcher; answers how many. `since` must lie
 * within the last 14 days, else 422.
 */
export async function recoverSince(deps: WebhookDeliveryDeps, projectId: string, webhookId: string, since: Date, now = Date.now()): Promise<number> {
  if (since.getTime() > now) throw new MailroomError('validation_error', '`since`: must not be in the future.');
  if (now - since.getTime() > RECOVER_MAX_DAYS * DAY_MS) {
    throw new MailroomError('validation_error', `\`since\`: must be at most ${RECOVER_MAX_DAYS} days back.`);
  }
  await getWebhook(deps.pool, projectId, webhookId);
  const events = await requestRecovery(deps.pool, { projectId, webhookId, since });
  // Deleted between the check above and the marking: as if the delete came first.
  if (events === null) throw notFound('webhook');
  if (events > 0) {
    // Durable already: a lost wake-up only waits for the dispatcher's next reconcile.
    await deps.queue.wakeDispatcher('recover').catch((err: unknown) => deps.logger.warn({ err, webhookId }, 'could not wake the dispatcher after a recover'));
  }
  return events;
}
