import type { HttpClient } from '../http-client.ts';
import type { Deleted, Operation, QueryParams, Schema } from '../operation-types.ts';
import type { PagePromise } from '../pagination.ts';
import type { RequestOptions } from '../request-options.ts';

export type ApiKey = Schema<'ApiKey'>;
export type CreatedApiKey = Schema<'CreatedApiKey'>;
export type CreateApiKeyParams = Schema<'CreateApiKeyRequest'>;
export type ListApiKeysQuery = QueryParams<Operation<'/api-keys', 'get'>>;

/** The project's API keys. A key's token is in the answer to `create` only. */
export class ApiKeys {
  constructor(private readonly http: HttpClient) {}

  create(params: CreateApiKeyParams, options?: RequestOptions): Promise<CreatedApiKey> {
    return this.http.call('post', '/api-keys', { body: params }, options);
  }

  list(query?: ListApiKeysQuery, options?: RequestOptions): PagePromise<ApiKey> {
    return this.http.list('/api-keys', { query }, options);
  }

  /** Revokes a key: refused by every gateway replica from then on. */
  revoke(id: string, options?: RequestOptions): Promise<Deleted> {
    return this.http.call('delete', '/api-keys/{id}', { params: { id } }, options);
  }
}
