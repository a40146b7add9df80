import type { ApiKeyPermission, Role } from '@mailroom/db';
import type { Session } from './session-tokens';

export type Principal =
  | { kind: 'token'; keyId: string; projectId: string; permission: ApiKeyPermission }
  | ({ kind: 'session' } & Session);

/** The caller of one request, and the project it acts in once authorized. */
export interface AuthContext {
  principal: Principal | null;
  /** The project in scope; set for `project` routes and for tokens. */
  projectId: string | null;
  /** The session user's role in that project; null for tokens. */
  role: Role | null;
}

/** The project a `project` route acts in; authorize() guarantees it is set. */
export function scopedProjectId(auth: AuthContext): string {
  if (!auth.projectId) throw new Error('route reached without a project in scope');
  return auth.projectId;
}
