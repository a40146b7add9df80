import { newId, notFound } from '@mailroom/core';
import { revokeApiKey as revokeKeyRow, type ApiKey, type ApiKeyPermission, type Database } from '@mailroom/db';
import { generateApiToken, type ApiTokenVerifier } from '../../auth/api-tokens';
import { pageArgs, type ListQuery } from '../../http/pagination';

/** Creates a key; the token is returned here once and never again. */
export async function createApiKey(
  db: Database,
  projectId: string,
  input: { name: string; permission: ApiKeyPermission },
): Promise<{ key: ApiKey; token: string }> {
  const { token, tokenHash, tokenStart } = generateApiToken();
  const key = await db.apiKey.create({
    data: { id: newId('apiKey'), projectId, name: input.name, permission: input.permission, tokenHash, tokenStart },
  });
  return { key, token };
}

/** Active keys of a project, newest first; revoked ones are gone from the list. */
export async function listApiKeys(db: Database, projectId: string, query: ListQuery): Promise<ApiKey[]> {
  const page = pageArgs(query);
  return db.apiKey.findMany({ ...page, where: { ...page.where, projectId, revokedAt: null } });
}

/**
 * Revokes a key (committed with a bump of the revocation epoch every replica polls), then tells
 * the replicas through Redis so they drop it at once. Another project's key, or an already
 * revoked one, is 404. Once committed the revocation stands, whatever Redis says.
 */
export async function revokeApiKey(db: Database, tokens: ApiTokenVerifier, projectId: string, id: string): Promise<void> {
  if (!(await revokeKeyRow(db, projectId, id))) throw notFound('API key');
  await tokens.announceRevocation();
}
