import { type LoadResult, runLoad } from './load';
import type { RunningServer } from './services';
import { SEND_JSON } from './workload';

export interface AcceptSettings {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

/** Loads POST /emails of one server (bare express or the gateway) with the bench send. */
export function measureAccept(server: RunningServer, token: string | undefined, settings: AcceptSettings): Promise<LoadResult> {
  return runLoad({
    url: `${server.url}/emails`,
    method: 'POST',
    headers: token ? { authorization: `Bearer ${token}` } : {},
    body: SEND_JSON,
    connections: settings.connections,
    durationSeconds: settings.durationSeconds,
    warmupSeconds: settings.warmupSeconds,
  });
}
