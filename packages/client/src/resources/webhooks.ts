import type { HttpClient } from '../http-client.ts';
import type { Deleted, Operation, QueryParams, Schema } from '../operation-types.ts';
import type { PagePromise } from '../pagination.ts';
import type { RequestOptions } from '../request-options.ts';

export type Webhook = Schema<'Webhook'>;
export type WebhookWithSecret = Schema<'WebhookWithSecret'>;
export type CreateWebhookParams = Schema<'CreateWebhookRequest'>;
export type UpdateWebhookParams = Schema<'UpdateWebhookRequest'>;
export type ListWebhooksQuery = QueryParams<Operation<'/webhooks', 'get'>>;

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

  /** A new secret, shown only here; deliveries carry signatures with both for 24 hours. */
  rotateSecret(id: string, options?: RequestOptions): Promise<WebhookWithSecret> {
    return this.http.call('post', '/webhooks/{id}/rotate-secret', { params: { id } }, options);
  }
}
