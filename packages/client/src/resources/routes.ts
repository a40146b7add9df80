import type { HttpClient } from '../http-client.ts';
import type { Deleted, Operation, QueryParams, Schema } from '../operation-types.ts';
import type { PagePromise } from '../pagination.ts';
import type { RequestOptions } from '../request-options.ts';

export type Route = Schema<'Route'>;
export type CreateRouteParams = Schema<'CreateRouteRequest'>;
export type UpdateRouteParams = Schema<'UpdateRouteRequest'>;
export type ListRoutesQuery = QueryParams<Operation<'/routes', 'get'>>;

/** Routes: which addresses (`local@domain` or `*@domain`) the MX accepts mail for, into this project. */
export class Routes {
  constructor(private readonly http: HttpClient) {}

  create(params: CreateRouteParams, options?: RequestOptions): Promise<Route> {
    return this.http.call('post', '/routes', { body: params }, options);
  }

  get(id: string, options?: RequestOptions): Promise<Route> {
    return this.http.call('get', '/routes/{id}', { params: { id } }, options);
  }

  list(query?: ListRoutesQuery, options?: RequestOptions): PagePromise<Route> {
    return this.http.list('/routes', { query }, options);
  }

  update(id: string, params: UpdateRouteParams, options?: RequestOptions): Promise<Route> {
    return this.http.call('patch', '/routes/{id}', { params: { id }, body: params }, options);
  }

  remove(id: string, options?: RequestOptions): Promise<Deleted> {
    return this.http.call('delete', '/routes/{id}', { params: { id } }, options);
  }
}
