import type { components, paths } from './generated/openapi.ts';

/** The HTTP methods the client calls. */
export type Method = 'get' | 'post' | 'patch' | 'delete';

/** A path of the OpenAPI document that has an operation for `M`. */
export type PathFor<M extends Method> = {
  [P in keyof paths]: paths[P][M] extends { responses: unknown } ? P : never;
}[keyof paths];

/** The operation at `P` for `M`, as generated. */
export type Operation<P extends keyof paths, M extends Method> = Extract<paths[P][M], { responses: unknown }>;

type JsonContent<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;

/** The JSON body an operation answers with on success (its 200, 201 or 202). */
export type SuccessBody<O> = O extends { responses: infer R }
  ? R extends { 200: infer S }
    ? JsonContent<S>
    : R extends { 201: infer S }
      ? JsonContent<S>
      : R extends { 202: infer S }
        ? JsonContent<S>
        : never
  : never;

/** The JSON request body of an operation, or `never` when it takes none. */
export type RequestBody<O> = O extends { requestBody?: infer B } ? JsonContent<NonNullable<B>> : never;

/** The path parameters of an operation. */
export type PathParams<O> = O extends { parameters: { path: infer P } } ? P : never;

/** The query parameters of an operation (all optional in this API). */
export type QueryParams<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The items of a list operation's `data`. */
export type ListItem<O> = SuccessBody<O> extends { data: (infer Item)[] } ? Item : never;

/** A schema of the document's components, by name. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/** What every DELETE answers. */
export interface Deleted {
  object: string;
  id: string;
  deleted: true;
}
