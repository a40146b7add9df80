import type { HttpClient } from '../http-client.ts';
import type { Operation, QueryParams, Schema } from '../operation-types.ts';
import type { PagePromise } from '../pagination.ts';
import type { RequestOptions } from '../request-options.ts';

export type Project = Schema<'Project'>;
export type CreateProjectParams = Schema<'CreateProjectRequest'>;
export type UpdateProjectParams = Schema<'UpdateProjectRequest'>;
export type ListProjectsQuery = QueryParams<Operation<'/projects', 'get'>>;

/** Projects: a session sees the user's projects, an API key its own. */
export class Projects {
  constructor(private readonly http: HttpClient) {}

  /** Creates a project owned by the signed-in user (console session of an owner). */
  create(params: CreateProjectParams, options?: RequestOptions): Promise<Project> {
    return this.http.call('post', '/projects', { body: params }, options);
  }

  /** The projects the credentials can see, newest first (`limit`, `after`). */
  list(query?: ListProjectsQuery, options?: RequestOptions): PagePromise<Project> {
    return this.http.list('/projects', { query }, options);
  }

  get(id: string, options?: RequestOptions): Promise<Project> {
    return this.http.call('get', '/projects/{id}', { params: { id } }, options);
  }

  /** Renames a project or changes its tracking defaults (`trackOpens`, `trackClicks`). */
  update(id: string, params: UpdateProjectParams, options?: RequestOptions): Promise<Project> {
    return this.http.call('patch', '/projects/{id}', { params: { id }, body: params }, options);
  }
}
