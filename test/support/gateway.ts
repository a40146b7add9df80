import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '@mailroom/core';
import { startGateway, type GatewayOptions, type RunningGateway } from '../../services/gateway/src/start-gateway';
import { createTestDatabase, type TestDatabase } from './databases';
import { apiClient, type ApiClient } from './http';

export const TEST_SECRET_KEY = 'test-secret-key-that-is-long-enough-0123456789';

/** Environment for one test file: its own database and Redis prefix, quiet logs, any port. */
export function testEnv(database: TestDatabase, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATABASE_URL: database.url,
    REDIS_URL: 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: `mrtest-${randomBytes(4).toString('hex')}`,
    API_PORT: '0',
    SECRET_KEY: TEST_SECRET_KEY,
    RATE_LIMIT_PER_SECOND: '1000',
    LOGIN_RATE_LIMIT_PER_MINUTE: '1000',
    ...overrides,
  };
}

export interface TestGateway {
  gateway: RunningGateway;
  api: ApiClient;
  config: Readonly<Config>;
  database: TestDatabase;
  /** Stops the gateway; drops the database unless it is shared with another gateway. */
  close(): Promise<void>;
}

/** A real gateway (the same start function main.ts calls) on a fresh database. */
export async function startTestGateway(
  options: { env?: Record<string, string>; database?: TestDatabase; label?: string; timeouts?: GatewayOptions['timeouts'] } = {},
): Promise<TestGateway> {
  const database = options.database ?? (await createTestDatabase(options.label ?? 'gateway'));
  const config = loadConfig(testEnv(database, options.env));
  const gateway = await startGateway(config, { host: '127.0.0.1', timeouts: options.timeouts });
  return {
    gateway,
    api: apiClient(gateway.url),
    config,
    database,
    async close() {
      await gateway.stop();
      if (!options.database) await database.drop();
    },
  };
}

let counter = 0;
/** Signs up a new user (signup must be open) and returns their session and first project. */
export async function signUp(api: ApiClient, email = `user${++counter}-${randomBytes(3).toString('hex')}@example.com`) {
  const res = await api.post('/auth/signup', { email, password: 'correct horse battery', projectName: 'Acme' });
  if (res.status !== 201) throw new Error(`signup failed: ${res.status} ${res.text}`);
  return {
    email,
    session: res.body.sessionToken as string,
    userId: res.body.user.id as string,
    projectId: res.body.project.id as string,
    as: api.as({ session: res.body.sessionToken, project: res.body.project.id }),
  };
}

/** Creates an API key in the caller's project and returns its token. */
export async function createKey(as: ApiClient, permission: 'full_access' | 'sending_access' = 'full_access') {
  const res = await as.post('/api-keys', { name: `key ${permission}`, permission });
  if (res.status !== 201) throw new Error(`api key creation failed: ${res.status} ${res.text}`);
  return { id: res.body.id as string, token: res.body.token as string };
}
