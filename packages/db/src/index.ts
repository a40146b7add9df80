export { createDatabase, type Database } from './client';
export { resolveSecretKey } from './settings';
export { Prisma } from './generated/client';
export type { ApiKey, Member, Project, User } from './generated/client';
export { ApiKeyPermission, Role } from './generated/enums';
export * from './emails';
export * from './auth';
export type { Email, EmailRecipient, EmailAttachment, EmailEvent, Suppression, IdempotencyKey } from './generated/client';
export { createPool, inTransaction, type Pool, type PoolClient, type Queryable } from './pool';
