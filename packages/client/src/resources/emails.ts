import type { HttpClient } from '../http-client.ts';
import type { Operation, QueryParams, Schema, SuccessBody } from '../operation-types.ts';
import type { PagePromise } from '../pagination.ts';
import type { RequestOptions } from '../request-options.ts';

type ApiAttachment = NonNullable<Schema<'SendEmailRequest'>['attachments']>[number];
/** An attachment as the client takes it: `content` is base64, or the bytes themselves (a `Uint8Array`, Node's `Buffer` too), sent as base64. */
export type AttachmentParams = Omit<ApiAttachment, 'content'> & { content: ApiAttachment['content'] | Uint8Array };
export type SendEmailParams = Omit<Schema<'SendEmailRequest'>, 'attachments'> & { attachments?: AttachmentParams[] };
export type Email = Schema<'Email'>;
export type EmailSummary = Schema<'EmailSummary'>;
export type ListEmailsQuery = QueryParams<Operation<'/emails', 'get'>>;
export type SendEmailBatchParams = SendEmailParams[];
export type SentEmail = SuccessBody<Operation<'/emails', 'post'>>;
export type SentEmailBatch = SuccessBody<Operation<'/emails/batch', 'post'>>;
export type LinkClicks = Schema<'LinkClicks'>;

/** Sent email: send one or a batch, read one with its recipients and timeline, list, cancel. */
export class Emails {
  constructor(private readonly http: HttpClient) {}

  /** Sends an email (`POST /emails`); answers its id. With retries on, it carries an idempotency key. */
  send(params: SendEmailParams, options?: RequestOptions): Promise<SentEmail> {
    return this.http.call('post', '/emails', { body: withBase64Attachments(params), send: true }, options);
  }

  /** Sends up to 100 emails, validated all-or-nothing (`POST /emails/batch`); answers their ids in order. */
  batch(emails: SendEmailBatchParams, options?: RequestOptions): Promise<SentEmailBatch> {
    return this.http.call('post', '/emails/batch', { body: emails.map(withBase64Attachments), send: true }, options);
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

/** The send as the API takes it: each attachment given as bytes becomes its base64. */
function withBase64Attachments(params: SendEmailParams): Schema<'SendEmailRequest'> {
  const { attachments, ...rest } = params;
  if (!attachments?.some((a) => a.content instanceof Uint8Array)) return params as Schema<'SendEmailRequest'>;
  return { ...rest, attachments: attachments.map((a) => ({ ...a, content: a.content instanceof Uint8Array ? base64Of(a.content) : a.content })) };
}

/** Standard base64 of bytes, in chunks (`String.fromCharCode` takes a bounded number of arguments); no Node API, so it runs in browsers too. */
function base64Of(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
