import type { HttpClient } from '../http-client.ts';
import type { Schema } from '../operation-types.ts';
import type { RequestOptions } from '../request-options.ts';

export type RevokedSession = Schema<'RevokedSession'>;

/** The console session this client was constructed with. */
export class Auth {
  constructor(private readonly http: HttpClient) {}

  /** Ends the session: every gateway replica refuses its token from then on. */
  logout(options?: RequestOptions): Promise<RevokedSession> {
    return this.http.call('post', '/auth/logout', {}, options);
  }
}
