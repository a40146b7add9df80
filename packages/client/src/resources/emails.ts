import type { HttpClient } from '../http-client.ts';
import type { Operation, QueryParams, RequestBody, Schema, SuccessBody } from '../operation-types.ts';
import type { PagePromise } from '../pagination.ts';
import type { RequestOptions } from '../request-options.ts';

export type SendEmailParams = Schema<'SendEmailRequest'>;
export type Email = Schema<'Email'>;
export type EmailSummary = Schema<'EmailSummary'>;
export type ListEmailsQuery = QueryParams<Operation<'/emails', 'get'>>;
export type SendEmailBatchParams = RequestBody<Operation<'/emails/batch', 'post'>>;
export type SentEmail = SuccessBody<Operation<'/emails', 'post'>>;
export type SentEmailBatch = SuccessBody<Operation<'/emails/batch', 'post'>>;
export type LinkClicks = Schema<'LinkClicks'>;

/** Sent email: send one or a batch, read one with its recipients and timeline, list, cancel. */
export class Emails {
  constructor(private readonly http: HttpClient) {}

  /** Sends an email (`POST /emails`); answers its id. With retries on, it carries an idempotency key. */
  send(params: SendEmailParams, options?: RequestOptions): Promise<SentEmail> {
    return this.http.call('post', '/emails', { body: params, send: true }, options);
  }

  /** Sends up to 100 emails, validated all-or-nothing (`POST /emails/batch`); answers their ids in order. */
  batch(emails: SendEmailBatchParams, options?: RequestOptions): Promise<SentEmailBatch> {
    return this.http.call('post', '/emails/batch', { body: emails, send: true }, options);
  }

  /** One email with its recipients and event timeline. */
  get(id: string, options?: RequestOptions): Promise<Email> {
    return this.http.call('get', '/emails/{id}', { params: { id } }, options);
  }

  /** Sent emails, newest first, filtered by `status` or a recipient (`to`). */
  list(query?: ListEmailsQuery, options?: RequestOptions): PagePromise<EmailSummary> {
    return this.http.list('/emails', { query }, options);
  }

  /** Clicks on each tracked link of an email: people and bots counted apart. */
  clicks(id: string, options?: RequestOptions): PagePromise<LinkClicks> {
    return this.http.list('/emails/{id}/clicks', { params: { id } }, options);
  }

  /** Cancels a scheduled email (409 `conflict` once it is no longer scheduled). */
  cancel(id: string, options?: RequestOptions): Promise<Email> {
    return this.http.call('post', '/emails/{id}/cancel', { params: { id } }, options);
  }
}
