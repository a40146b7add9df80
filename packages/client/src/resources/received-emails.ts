import type { HttpClient } from '../http-client.ts';
import type { Operation, QueryParams, Schema } from '../operation-types.ts';
import type { PagePromise } from '../pagination.ts';
import type { RequestOptions } from '../request-options.ts';

export type ReceivedEmail = Schema<'ReceivedEmail'>;
export type ReceivedEmailSummary = Schema<'ReceivedEmailSummary'>;
export type ListReceivedEmailsQuery = QueryParams<Operation<'/emails/received', 'get'>>;

/** Mail received through the project's routes: parsed and authenticated, and its exact bytes. */
export class ReceivedEmails {
  constructor(private readonly http: HttpClient) {}

  /** One received email, parsed: addresses, text, HTML, headers, attachments, SPF/DKIM/DMARC/ARC. */
  get(id: string, options?: RequestOptions): Promise<ReceivedEmail> {
    return this.http.call('get', '/emails/received/{id}', { params: { id } }, options);
  }

  /** Received emails, newest first, optionally only those of one route (`routeId`). */
  list(query?: ListReceivedEmailsQuery, options?: RequestOptions): PagePromise<ReceivedEmailSummary> {
    return this.http.list('/emails/received', { query }, options);
  }

  /** The message exactly as it arrived (RFC 822 bytes). */
  raw(id: string, options?: RequestOptions): Promise<Uint8Array> {
    return this.http.bytes('/emails/received/{id}/raw', { params: { id } }, options);
  }

  /** One attachment's bytes, by the `id` listed in the email's `attachments`. */
  attachment(id: string, attachmentId: string, options?: RequestOptions): Promise<Uint8Array> {
    return this.http.bytes('/emails/received/{id}/attachments/{attachmentId}', { params: { id, attachmentId } }, options);
  }
}
