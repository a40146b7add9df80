import type { HttpClient } from '../http-client.ts';
import type { Deleted, Operation, QueryParams, Schema } from '../operation-types.ts';
import type { PagePromise } from '../pagination.ts';
import type { RequestOptions } from '../request-options.ts';

export type Suppression = Schema<'Suppression'>;
export type ListSuppressionsQuery = QueryParams<Operation<'/suppressions', 'get'>>;

/** Recipients not sent to after a hard bounce or a complaint. Removing one allows sending again. */
export class Suppressions {
  constructor(private readonly http: HttpClient) {}

  list(query?: ListSuppressionsQuery, options?: RequestOptions): PagePromise<Suppression> {
    return this.http.list('/suppressions', { query }, options);
  }

  get(email: string, options?: RequestOptions): Promise<Suppression> {
    return this.http.call('get', '/suppressions/{email}', { params: { email } }, options);
  }

  remove(email: string, options?: RequestOptions): Promise<Deleted> {
    return this.http.call('delete', '/suppressions/{email}', { params: { email } }, options);
  }
}
