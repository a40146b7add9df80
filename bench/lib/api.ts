import { randomBytes } from 'node:crypto';
import { SEND_BODY } from './workload';

async function call<T>(baseUrl: string, path: string, init: { body: unknown; headers?: Record<string, string> }, expected: number): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: JSON.stringify(init.body),
  });
  const text = await response.text();
  if (response.status !== expected) {
    throw new Error(`POST ${path} answered ${response.status} (expected ${expected}): ${text.slice(0, 2_000)}`);
  }
  return JSON.parse(text) as T;
}

/** Signs up a fresh user and returns a full_access API token for its first project. */
export async function createApiToken(baseUrl: string): Promise<string> {
  const email = `bench-${randomBytes(6).toString('hex')}@example.test`;
  const signup = await call<{ sessionToken: string; project: { id: string } }>(
    baseUrl,
    '/auth/signup',
    { body: { email, password: randomBytes(18).toString('base64url'), projectName: 'Bench' } },
    201,
  );
  const key = await call<{ token: string }>(
    baseUrl,
    '/api-keys',
    { body: { name: 'bench' }, headers: { 'x-service-session': signup.sessionToken, 'x-project-id': signup.project.id } },
    201,
  );
  return key.token;
}

/** Queues `count` copies of the bench send through POST /emails/batch, `perRequest` at a time, a few requests at once. */
export async function enqueueEmails(baseUrl: string, token: string, count: number, perRequest = 100, parallel = 4): Promise<void> {
  const sizes: number[] = [];
  for (let left = count; left > 0; left -= perRequest) sizes.push(Math.min(perRequest, left));
  let next = 0;
  const lane = async () => {
    while (next < sizes.length) {
      const size = sizes[next++] ?? 0;
      const answer = await call<{ data: { id: string }[] }>(
        baseUrl,
        '/emails/batch',
        { body: Array.from({ length: size }, () => SEND_BODY), headers: { authorization: `Bearer ${token}` } },
        200,
      );
      if (answer.data.length !== size) throw new Error(`POST /emails/batch accepted ${answer.data.length} of ${size} emails`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, sizes.length) }, lane));
}
