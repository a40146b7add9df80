import { z } from 'zod';
import { scopedProjectId } from '../../auth/auth-context';
import { toPage } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { idParams, listSchema, timestamp } from '../../schemas/common';
import { listAttempts, RECOVER_MAX_DAYS, recoverSince, replayLatestFailure, sendTestEvent } from './deliver-now';
import { presentAttempt } from './present';
import { attemptsQuery, recoverRequest, webhookAttemptSchema } from './schemas';

const recoverySchema = z
  .object({
    object: z.literal('webhook_recovery'),
    webhookId: z.string(),
    since: timestamp,
    events: z.number().int().meta({ description: 'How many events were marked for re-delivery.' }),
  })
  .meta({ id: 'WebhookRecovery' });

/** Delivering on demand (test, replay, recover) and the attempt log (DESIGN §5). */
export const webhookDeliveryRoutes = [
  defineRoute({
    method: 'post',
    path: '/webhooks/{id}/test',
    operationId: 'testWebhook',
    summary: 'Send a test event to a webhook endpoint now',
    description:
      'Delivers a signed `webhook.test` event synchronously, once (no retries), even to a disabled endpoint, and answers the attempt, successful or not. The attempt is in the log like any other.',
    tag: 'Webhooks',
    access: { kind: 'project' },
    params: idParams,
    success: { status: 200, description: 'The attempt.', schema: webhookAttemptSchema },
    errors: ['not_found'],
    async handler({ params, auth, ctx }) {
      return presentAttempt(await sendTestEvent(ctx.webhookDeliveries, scopedProjectId(auth), params.id));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/webhooks/{id}/attempts',
    operationId: 'listWebhookAttempts',
    summary: "A webhook endpoint's attempt log",
    description: 'Every POST made to the endpoint, scheduled and manual, newest first; never the secret.',
    tag: 'Webhooks',
    access: { kind: 'project' },
    params: idParams,
    query: attemptsQuery,
    success: { status: 200, description: 'Attempts, newest first.', schema: listSchema(webhookAttemptSchema) },
    errors: ['not_found'],
    async handler({ params, query, auth, ctx }) {
      const rows = await listAttempts(ctx.pool, scopedProjectId(auth), params.id, { ...query, eventId: query.eventId ?? query.event_id });
      return toPage(rows, query, presentAttempt);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/webhooks/{id}/replay',
    operationId: 'replayWebhook',
    summary: 'Replay the latest failed delivery now',
    description:
      "Delivers now, synchronously, the event of the endpoint's most recent failed attempt whose event has not been delivered to it since, as a new `manual` attempt with the next attempt number, and answers that attempt (successful or not). On success the event's pending scheduled retries are cancelled. Works on a disabled endpoint and leaves it disabled. 404 `not_found` when there is nothing to replay; 409 `conflict` while another replay or a recover of the same endpoint is still in progress (two at once would deliver the event twice). An event whose retry is being posted right now, or which a recover has queued, is not replayed (the older failure before it is, if any).",
    tag: 'Webhooks',
    access: { kind: 'project' },
    params: idParams,
    success: { status: 200, description: 'The manual attempt.', schema: webhookAttemptSchema },
    errors: ['not_found', 'conflict'],
    async handler({ params, auth, ctx }) {
      return presentAttempt(await replayLatestFailure(ctx.webhookDeliveries, scopedProjectId(auth), params.id));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/webhooks/{id}/recover',
    operationId: 'recoverWebhook',
    summary: 'Re-deliver every event that failed since a time',
    description: `Re-delivers, in the background and as \`manual\` attempts, every event whose deliveries to this endpoint all failed since \`since\`, and every event since then (and since the endpoint was created) of the types it subscribes to that it missed while disabled (ISO 8601, at most ${RECOVER_MAX_DAYS} days back, not in the future; else 422). Answers 202 with how many events were marked; the attempts appear in the log as they are made. Works on a disabled endpoint without re-enabling it. 409 \`conflict\` while a replay (or another recover) of the endpoint is in progress: the event being replayed would be delivered twice.`,
    tag: 'Webhooks',
    access: { kind: 'project' },
    params: idParams,
    body: recoverRequest,
    success: { status: 202, description: 'Accepted: the events are marked for re-delivery.', schema: recoverySchema },
    errors: ['not_found', 'conflict'],
    async handler({ params, body, auth, ctx }) {
      const since = new Date(body.since);
      const events = await recoverSince(ctx.webhookDeliveries, scopedProjectId(auth), params.id, since);
      return { object: 'webhook_recovery', webhookId: params.id, since: since.toISOString(), events };
    },
  }),
];
