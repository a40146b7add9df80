export { createDatabase, type Database } from './client';
export { resolveSecretKey } from './settings';
export { Prisma } from './generated/client';
export type { ApiKey, Member, Project, User } from './generated/client';
export { ApiKeyPermission, Role } from './generated/enums';
