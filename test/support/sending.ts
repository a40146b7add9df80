import { FINAL_STATUSES, loadConfig } from '@mailroom/core';
import { startSender, type RunningSender } from '../../services/sender/src/start-sender';
import { createTestDatabase, type TestDatabase } from './databases';
import { createKey, signUp, startTestGateway, testEnv, type TestGateway } from './gateway';
import type { ApiClient } from './http';

/** A gateway and an in-process sender sharing one database and queue prefix. */
export interface SendingStack {
  t: TestGateway;
  sender: RunningSender;
  api: ApiClient;
  projectId: string;
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startSendingStack(label: string, env: Record<string, string>): Promise<SendingStack> {
  const database: TestDatabase = await createTestDatabase(label);
  const fullEnv = testEnv(database, { SMTP_RETRY_SCHEDULE: '1,1', LEASE_SECONDS: '5', RECONCILE_INTERVAL_SECONDS: '1', ...env });
  const t = await startTestGateway({ database, env: fullEnv });
  const sender = await startSender(loadConfig(fullEnv));
  const owner = await signUp(t.api);
  const api = t.api.as({ token: (await createKey(owner.as)).token });
  return {
    t,
    sender,
    api,
    projectId: owner.projectId,
    env: fullEnv,
    async close() {
      await sender.stop();
      await t.close();
      await database.drop();
    },
  };
}

/** Polls `GET /emails/{id}` until `done` holds, or fails with the last state seen. */
export async function waitForEmail(api: ApiClient, id: string, done: (email: any) => boolean, timeoutMs = 15_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    last = (await api.get(`/emails/${id}`)).body;
    if (done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`email ${id} did not reach the expected state; last seen: ${JSON.stringify(last)}`);
}

export const FINAL = FINAL_STATUSES as ReadonlySet<string>;
export const isFinished = (email: any) => FINAL.has(email.status);
