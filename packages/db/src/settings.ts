import { randomToken } from '@mailroom/core';
import type { Database } from './client';

const SECRET_KEY_SETTING = 'secret_key';

/**
 * The master secret: SECRET_KEY when configured, else one generated at first start and kept
 * in the database so every local process derives the same sub-keys.
 */
export async function resolveSecretKey(db: Database, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  await db.setting.createMany({ data: [{ key: SECRET_KEY_SETTING, value: randomToken(48) }], skipDuplicates: true });
  const row = await db.setting.findUniqueOrThrow({ where: { key: SECRET_KEY_SETTING } });
  return row.value;
}
