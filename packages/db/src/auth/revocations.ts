import type { Database } from '../client';

const API_KEYS_EPOCH = 'api_keys';

/**
 * Revokes a project's active API key and bumps the `api_keys` revocation epoch in the same
 * transaction, so a replica that sees the new epoch also sees the revocation. False when the
 * key is unknown, another project's, or already revoked.
 */
export async function revokeApiKey(db: Database, projectId: string, id: string): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const { count } = await tx.apiKey.updateMany({ where: { id, projectId, revokedAt: null }, data: { revokedAt: new Date() } });
    if (count === 0) return false;
    await tx.$executeRaw`
      INSERT INTO revocation_epochs (name, epoch, updated_at) VALUES (${API_KEYS_EPOCH}, 1, now())
      ON CONFLICT (name) DO UPDATE SET epoch = revocation_epochs.epoch + 1, updated_at = now()`;
    return true;
  });
}

/** The `api_keys` revocation epoch: one primary-key read, cheap enough to poll every few seconds. */
export async function readApiKeyRevocationEpoch(db: Database): Promise<bigint> {
  const row = await db.revocationEpoch.findUnique({ where: { name: API_KEYS_EPOCH }, select: { epoch: true } });
  return row?.epoch ?? 0n;
}

/** Signs a console session out for good; expired revocations are pruned on the way. */
export async function revokeSession(db: Database, session: { jti: string; userId: string; expiresAt: Date }): Promise<void> {
  await db.$transaction([
    db.revokedSession.deleteMany({ where: { expiresAt: { lt: new Date() } } }),
    db.revokedSession.createMany({ data: [session], skipDuplicates: true }),
  ]);
}

/** Whether the session with this `jti` was signed out (a primary-key lookup). */
export async function isSessionRevoked(db: Database, jti: string): Promise<boolean> {
  return (await db.revokedSession.findUnique({ where: { jti }, select: { jti: true } })) !== null;
}
