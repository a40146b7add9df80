import type { HttpClient } from '../http-client.ts';
import type { Deleted, Operation, QueryParams, Schema } from '../operation-types.ts';
import type { PagePromise } from '../pagination.ts';
import type { RequestOptions } from '../request-options.ts';

export type Domain = Schema<'Domain'>;
export type DomainRecord = Schema<'DomainRecord'>;
export type CreateDomainParams = Schema<'CreateDomainRequest'>;
export type ListDomainsQuery = QueryParams<Operation<'/domains', 'get'>>;

/** Sending domains: the DNS records to publish, their verification, and DKIM key rotation. */
export class Domains {
  constructor(private readonly http: HttpClient) {}

  create(params: CreateDomainParams, options?: RequestOptions): Promise<Domain> {
    return this.http.call('post', '/domains', { body: params }, options);
  }

  get(id: string, options?: RequestOptions): Promise<Domain> {
    return this.http.call('get', '/domains/{id}', { params: { id } }, options);
  }

  list(query?: ListDomainsQuery, options?: RequestOptions): PagePromise<Domain> {
    return this.http.list('/domains', { query }, options);
  }

  remove(id: string, options?: RequestOptions): Promise<Deleted> {
    return this.http.call('delete', '/domains/{id}', { params: { id } }, options);
  }

  /** Looks the records up now and answers the domain with each record's status. */
  verify(id: string, options?: RequestOptions): Promise<Domain> {
    return this.http.call('post', '/domains/{id}/verify', { params: { id } }, options);
  }

  /** Starts a DKIM key rotation: a new selector to publish; it signs once its record verifies. */
  rotateDkim(id: string, options?: RequestOptions): Promise<Domain> {
    return this.http.call('post', '/domains/{id}/rotate-dkim', { params: { id } }, options);
  }
}
