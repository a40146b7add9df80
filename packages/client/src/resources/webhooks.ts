import type { HttpClient } from '../http-client.ts';
import type { Deleted, Operation, QueryParams, Schema } from '../operation-types.ts';
import type { PagePromise } from '../pagination.ts';
import type { RequestOptions } from '../request-options.ts';

export type Webhook = Schema<'Webhook'>;
export type WebhookWithSecret = Schema<'WebhookWithSecret'>;
export type CreateWebhookParams = Schema<'CreateWebhookRequest'>;
export type UpdateWebhookParams = Schema<'UpdateWebhookRequest'>;
export type ListWebhooksQuery = QueryParams<Operation<'/webhooks', 'get'>>;
export type WebhookAttempt = Schema<'WebhookAttempt'>;
export type ListWebhookAttemptsQuery = QueryParams<Operation<'/webhooks/{id}/attempts', 'get'>>;
export type RecoverWebhookParams = Schema<'RecoverWebhookRequest'>;
export type WebhookRecovery = Schema<'WebhookRecovery'>;

/** Webhook endpoints: where the project's events are pushed, signed with the endpoint's secret. */
export class Webhooks {
  constructor(private readonly http: HttpClient) {}

  /** Creates an endpoint; the answer's `secret` (whsec_…) is shown only here. */
  create(params: CreateWebhookParams, options?: RequestOptions): Promise<WebhookWithSecret> {
    return this.http.call('post', '/webhooks', { body: params }, options);
  }

  get(id: string, options?: RequestOptions): Promise<Webhook> {
    return this.http.call('get', '/webhooks/{id}', { params: { id } }, options);
  }

  list(query?: ListWebhooksQuery, options?: RequestOptions): PagePromise<Webhook> {
    return this.http.list('/webhooks', { query }, options);
  }

  /** Changes the URL, events, route or description; `enabled` disables or re-enables it. */
  update(id: string, params: UpdateWebhookParams, options?: RequestOptions): Promise<Webhook> {
    return this.http.call('patch', '/webhooks/{id}', { params: { id }, body: params }, options);
  }

  remove(id: string, options?: RequestOptions): Promise<Deleted> {
    return this.http.call('delete', '/webhooks/{id}', { params: { id } }, options);
  }

  /** Delivers a signed `webhook.test` event now and answers the attempt. */
  test(id: string, options?: RequestOptions): Promise<WebhookAttempt> {
    return this.http.call('post', '/webhooks/{id}/test', { params: { id } }, options);
  }

  /** The delivery log, newest first, optionally of one event (`eventId`) or by outcome (`success`). */
  attempts(id: string, query?: ListWebhookAttemptsQuery, options?: RequestOptions): PagePromise<WebhookAttempt> {
    return this.http.list('/webhooks/{id}/attempts', { params: { id }, query }, options);
  }

  /** Delivers now the event of the most recent failed attempt (404 `not_found` when there is none). */
  replay(id: string, options?: RequestOptions): Promise<WebhookAttempt> {
    return this.http.call('post', '/webhooks/{id}/replay', { params: { id } }, options);
  }

  /** Re-delivers every event whose deliveries to this endpoint all failed `since` (ISO 8601, at most 14 days back). */
  recover(id: string, params: RecoverWebhookParams, options?: RequestOptions): Promise<WebhookRecovery> {
    return this.http.call('post', '/webhooks/{id}/recover', { params: { id }, body: params }, options);
  }

  /** A new secret, shown only here; deliveries carry signatures with both for 24 hours. */
  rotateSecret(id: string, options?: RequestOptions): Promise<WebhookWithSecret> {
    return this.http.call('post', '/webhooks/{id}/rotate-secret', { params: { id } }, options);
  }
}
