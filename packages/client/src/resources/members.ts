import type { HttpClient } from '../http-client.ts';
import type { Deleted, Operation, QueryParams, Schema } from '../operation-types.ts';
import type { PagePromise } from '../pagination.ts';
import type { RequestOptions } from '../request-options.ts';

export type Member = Schema<'Member'>;
export type AddMemberParams = Schema<'AddMemberRequest'>;
export type UpdateMemberParams = Schema<'UpdateMemberRequest'>;
export type ListMembersQuery = QueryParams<Operation<'/projects/{id}/members', 'get'>>;

/** The people of a project. Adding and removing are for its owners, with a console session. */
export class Members {
  constructor(private readonly http: HttpClient) {}

  /** Adds an existing user, by email, with a role. */
  add(projectId: string, params: AddMemberParams, options?: RequestOptions): Promise<Member> {
    return this.http.call('post', '/projects/{id}/members', { params: { id: projectId }, body: params }, options);
  }

  /** The project's members, newest user first (`limit`, `after`: a user id). */
  list(projectId: string, query?: ListMembersQuery, options?: RequestOptions): PagePromise<Member> {
    return this.http.list('/projects/{id}/members', { params: { id: projectId }, query }, options);
  }

  /** Changes a member's role (409 `conflict` when it would leave the project without an owner). */
  update(projectId: string, userId: string, params: UpdateMemberParams, options?: RequestOptions): Promise<Member> {
    return this.http.call('patch', '/projects/{id}/members/{userId}', { params: { id: projectId, userId }, body: params }, options);
  }

  /** Removes a user from the project (409 `conflict` for its last owner). */
  remove(projectId: string, userId: string, options?: RequestOptions): Promise<Deleted> {
    return this.http.call('delete', '/projects/{id}/members/{userId}', { params: { id: projectId, userId } }, options);
  }
}
