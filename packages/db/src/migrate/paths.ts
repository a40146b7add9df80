import path from 'node:path';

// Resolved from this file rather than the working directory, so any caller finds the same schema.
const repositoryRoot = path.resolve(__dirname, '../../../..');

export const schemaPath = path.join(repositoryRoot, 'prisma', 'schema.prisma');
export const migrationsDirectory = path.join(repositoryRoot, 'prisma', 'migrations');
export const cliPath = path.resolve(__dirname, '..', 'cli.ts');
